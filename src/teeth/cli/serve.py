"""The `teeth serve` and `teeth push` commands."""

from __future__ import annotations

import socket

import click

from teeth.cli.options import db_option, resolve_run, run_option
from teeth.errors import TeethError
from teeth.serve import DEFAULT_MAX_BODY, READS
from teeth.store.db import db_path


@click.group("serve", invoke_without_command=True)
@db_option()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8787, show_default=True,
              help="Port to listen on (0: any free port; the URL is printed).")
@click.option("--reads", type=click.Choice(READS), default="open", show_default=True, envvar="TEETH_SERVE_READS",
              help="open: anyone may query; token: queries need a token too (or $TEETH_SERVE_READS).")
@click.option("--max-body-mb", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_MAX_BODY / 2**20,
              show_default=True, help="Largest push accepted, in MiB (larger: HTTP 413).")
@click.pass_context
def serve_command(ctx, db, host, port, reads, max_body_mb):
    """Serve the kill-rate history over HTTP: runs are pushed to it, and queried as JSON, pages and badges."""
    if ctx.invoked_subcommand is not None:
        return
    import uvicorn

    from teeth.serve.app import create_app

    try:  # listen first: a port in use or a bad host leaves no database behind
        sock = socket.create_server((host, port))
    except OSError as exc:
        raise TeethError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    try:
        app = create_app(db_path(db), reads, int(max_body_mb * 2**20))
    except BaseException:
        sock.close()
        raise
    bound = sock.getsockname()
    click.echo(f"teeth serve: http://{host}:{bound[1]} (database {db_path(db)}, reads {reads})", err=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, timeout_keep_alive=30))
    server.run(sockets=[sock])


@serve_command.group("token")
def token_command():
    """Push tokens (stored hashed)."""


@token_command.command("create")
@click.argument("name")
@click.option("--target", "targets", multiple=True, help="The token pushes runs of this target only (repeatable; "
              "default: any target).")
@db_option()
def token_create(name, targets, db):
    """Create a push token called NAME and print it (it is shown only this once)."""
    from teeth.serve.store import ServeStore

    click.echo(ServeStore(db_path(db)).serving().create_token(name, targets))


@token_command.command("revoke")
@click.argument("name")
@db_option()
def token_revoke(name, db):
    """Revoke the push token called NAME: the server refuses it from the next request on."""
    from teeth.serve.store import ServeStore

    ServeStore(db_path(db)).serving().revoke_token(name)
    click.echo(f"token {name!r} revoked", err=True)


@click.command("push")
@click.argument("url")
@click.option("--token", envvar="TEETH_TOKEN", required=True, help="A token from `teeth serve token create` "
              "(or $TEETH_TOKEN).")
@db_option()
@run_option
def push_command(url, token, db, run_ref):
    """Send a run (mutants, outcomes, tests, metadata) to a teeth server; pushing a run again stores it once."""
    from teeth.serve.push import push_run
    from teeth.serve.store import ServeStore

    if not token or not token.isascii() or not token.isprintable() or " " in token:
        raise TeethError("--token must be printable ASCII without spaces (a token from `teeth serve token create`); "
                         "nothing was sent")
    store = ServeStore(db_path(db), create=False)
    reply = push_run(url, token, store, resolve_run(store, run_ref).id)
    verb = "stored as" if reply.get("stored") else "already stored as"
    click.echo(f"run {reply['local_run']} of {reply.get('target')} {verb} run {reply.get('run')} on {url} "
               f"({reply.get('mutants')} mutants, {reply.get('outcomes')} outcomes)")
