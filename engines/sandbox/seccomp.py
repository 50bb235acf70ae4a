"""The sandbox's seccomp filter: no new user namespaces inside it, whoever runs the host.

As an ordinary user, bubblewrap's ``--disable-userns`` already forbids them; as root (where the bot is
dropped to a uid of its own instead of a user namespace, see ``runner``) that option is not available,
and a bot could ``unshare(CLONE_NEWUSER)``, become root of a namespace of its own and mount filesystems
there (a tmpfs past its /tmp limit, in the host's memory) or reach kernel code meant for root. The filter
refuses ``unshare`` and ``clone`` with ``CLONE_NEWUSER`` (EPERM), answers ``clone3`` with ENOSYS (its flags
are in memory a filter cannot read: the C library then falls back to ``clone``, as it does on older
kernels) and refuses every other ABI than x86-64's own (32-bit and x32 calls bypass a filter on numbers).

bubblewrap loads it (``--seccomp FD``) just before it runs the launcher; the filter is classic BPF, built
here with no library.
"""
from __future__ import annotations

import errno
import functools
import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
CLONE_NEWUSER = 0x10000000
#: x86-64 system call numbers
SYS_CLONE, SYS_UNSHARE, SYS_CLONE3 = 56, 272, 435

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K, _JGE_K, _JSET_K = 0x15, 0x35, 0x45  # BPF_JMP | BPF_JEQ/JGE/JSET | BPF_K
_RET_K = 0x06
_ALLOW, _KILL_PROCESS = 0x7FFF0000, 0x80000000
_ERRNO = 0x00050000
# offsets in struct seccomp_data: nr (int), arch (u32), instruction_pointer (u64), args[6] (u64, little-endian)
_NR, _ARCH, _ARG0_LOW = 0, 4, 16


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def supported() -> bool:
    """Whether this filter fits the machine (x86-64 Linux, the only platform the workers run)."""
    return platform.machine() in ("x86_64", "AMD64")


@functools.cache
def no_new_user_namespaces() -> bytes:
    """The filter as bubblewrap's ``--seccomp`` reads it: an array of ``struct sock_filter``."""
    program = [
        _op(_LD_W_ABS, _ARCH),
        _op(_JEQ_K, AUDIT_ARCH_X86_64, jt=1),  # jf: the next instruction
        _op(_RET_K, _KILL_PROCESS),  # another ABI (int 0x80)
        _op(_LD_W_ABS, _NR),
        _op(_JGE_K, X32_SYSCALL_BIT, jf=1),
        _op(_RET_K, _ERRNO | errno.ENOSYS),  # x32
        _op(_JEQ_K, SYS_CLONE3, jf=1),
        _op(_RET_K, _ERRNO | errno.ENOSYS),
        _op(_JEQ_K, SYS_UNSHARE, jt=1),
        _op(_JEQ_K, SYS_CLONE, jf=3),
        _op(_LD_W_ABS, _ARG0_LOW),  # the flags (both calls take them first, in the low 32 bits)
        _op(_JSET_K, CLONE_NEWUSER, jf=1),
        _op(_RET_K, _ERRNO | errno.EPERM),
        _op(_RET_K, _ALLOW),
    ]
    return b"".join(program)
