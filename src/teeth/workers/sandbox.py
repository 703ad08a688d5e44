"""The outer protection of a warm worker: on Linux with Landlock, the process (and every process it forks) may write
only below the folders it is given (its scratch area) and /dev; it may still read everything.

Landlock is a kernel feature usable without privileges (Linux >= 5.13). The three system calls are made through
ctypes: there is no maintained Python binding (the `landlock` package on PyPI is a 1.0 development release).
"""

from __future__ import annotations

import ctypes
import os
import platform

# linux/landlock.h
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same numbers on x86_64 and the generic table
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
# Every right that writes, by the ABI version that introduced it (reading and executing stay unrestricted).
_WRITE_RIGHTS = {
    1: (1 << 1)  # WRITE_FILE
    | (1 << 4) | (1 << 5)  # REMOVE_DIR, REMOVE_FILE
    | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12),  # MAKE_CHAR .. MAKE_SYM
    2: 1 << 13,  # REFER: links and renames across folders
    3: 1 << 14,  # TRUNCATE
}
ALWAYS_WRITABLE = ("/dev",)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 where there is none (not Linux, too old, or disabled)."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64", "riscv64"):
        return 0
    version = _libc().syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def restrict_writes(writable: list[str]) -> str:
    """Confine this process and its future children to writing below `writable` and /dev.
    Returns what is in force, for the run's record: "landlock (ABI n)", or why nothing is."""
    abi = abi_version()
    if abi < 1:
        return "none (Landlock unavailable on this kernel)"
    rights = 0
    for version, bits in _WRITE_RIGHTS.items():
        if abi >= version:
            rights |= bits
    libc = _libc()
    attr = _RulesetAttr(rights)
    ruleset = libc.syscall(_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        return f"none (landlock_create_ruleset: {os.strerror(ctypes.get_errno())})"
    try:
        for path in [*writable, *ALWAYS_WRITABLE]:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneathAttr(rights, fd)
                if libc.syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                                ctypes.byref(rule), ctypes.c_uint32(0)) < 0:
                    return f"none (landlock_add_rule {path}: {os.strerror(ctypes.get_errno())})"
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return f"none (no_new_privs: {os.strerror(ctypes.get_errno())})"
        if libc.syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) < 0:
            return f"none (landlock_restrict_self: {os.strerror(ctypes.get_errno())})"
    finally:
        os.close(ruleset)
    return f"landlock (ABI {abi})"
