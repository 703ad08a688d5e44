"""The progress bar's ETA: from the pace of measured mutants only, so bursts of settled outcomes cannot make it jump."""

from __future__ import annotations

import io

from rich.console import Console

from teeth.report.progress import MeasuredEta, RichProgress


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_burst_of_reused_outcomes_does_not_shrink_the_eta():
    clock = Clock()
    eta = MeasuredEta(clock)
    eta.start(total=110)
    for _ in range(100):  # reused / skipped / no_coverage: settled at once
        eta.advance(measured=False)
    assert eta.seconds_left() is None
    for _ in range(3):  # three measured mutants, one second apart
        eta.advance(measured=True)
        clock.now += 1.0
    clock.now -= 1.0
    assert eta.seconds_left() == 7 * 1.0  # seven left at one second each, not 7 x (2 s / 103 done)


def test_the_eta_stays_steady_while_measured_mutants_keep_their_pace():
    clock = Clock()
    eta = MeasuredEta(clock)
    eta.start(total=40)
    seen = []
    for n in range(20):
        if n == 5:
            for _ in range(10):
                eta.advance(measured=False)
        eta.advance(measured=True)
        if eta.seconds_left() is not None:
            seen.append(eta.seconds_left() + clock.now)  # the predicted end
        clock.now += 0.5
    # The predicted end moves once, by exactly the 10 settled mutants' share (10 x 0.5 s): no rate jump.
    assert sorted(set(seen)) == [seen[-1], seen[0]] and seen[0] - seen[-1] == 10 * 0.5, seen


def test_plain_progress_lines_in_a_log_carry_the_measured_eta():
    clock, out = Clock(), io.StringIO()
    progress = RichProgress(Console(file=out, force_terminal=False, width=200), clock=clock)
    progress.start("cpu", total=50)
    for _ in range(30):
        progress.advance(None, "skipped", measured=False)
    for _ in range(5):
        progress.advance(None, "killed")
        clock.now += 2.0
    clock.now += 10.0
    progress.advance(None, "killed")
    progress.finish()
    line = [text for text in out.getvalue().splitlines() if "mutants (" in text][-1]
    # 6 measured over 20 s since the first: 4 s each, 14 left: 56 s (a rate over all 36 done would say ~12 s)
    assert "36/50 mutants (killed:6 skipped:30), about 56s left" in line, out.getvalue()
