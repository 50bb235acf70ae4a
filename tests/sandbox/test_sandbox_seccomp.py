"""The seccomp filter's ABI rules: a 32-bit system call (``int 0x80``) kills the bot, an x32 one is refused.

A filter that matches x86-64 system call numbers is bypassed by any call made through another ABI, whose
numbers differ (i386's 310 is x86-64's ``process_vm_readv``, not ``unshare``). So the filter kills every
call whose ``arch`` is not x86-64 and answers ENOSYS to every x32 call (x86-64's arch, number with bit
0x40000000). The hostile bots of test_sandbox_hostile.py cover the ``CLONE_NEWUSER`` and ``clone3`` rules
in the real sandbox; here:

- the real sandbox, with a bot that makes those calls, each beside a control run outside the filter (the
  host's own Python), which shows what the same call does unfiltered on this kernel;
- the filter program itself, decoded and run by a small classic-BPF interpreter over synthetic
  ``seccomp_data``: every rule's verdict, whatever the kernel supports (x32 is usually compiled out, and
  IA32 emulation may be too).
"""
from __future__ import annotations

import errno
import os
import platform
import re
import signal
import struct
import subprocess
import sys

import pytest

from engines.bots import BotFault
from engines.sandbox import ProgramBot, SandboxLimits, seccomp

from sandbox_helpers import write_bot

LIMITS = SandboxLimits(move_ms=2000, start_ms=5000, cpu_s=20, memory_mb=128, processes=16, open_files=32,
                       file_mb=4, tmp_mb=8, stderr_bytes=256 * 1024)

x86_64_only = pytest.mark.skipif(
    not seccomp.supported(),
    reason=f"the seccomp filter is built for x86-64 (the workers' machine), not {platform.machine()}: "
           "the sandbox runs without it here")

# --- probes (standard library only: they run as sandboxed bots and as the host's plain Python) -----------

INT80_PROBE = r'''
import ctypes, mmap, os, sys

# x86-64 machine code, encoded by hand; each is a C function int(void), its result in eax.
CODE_42 = bytes([
    0xB8, 0x2A, 0x00, 0x00, 0x00,  # mov eax, 42   (B8+r: mov r32, imm32; the immediate little-endian)
    0xC3,                          # ret
])
CODE_INT80_GETPID = bytes([
    0xB8, 0x14, 0x00, 0x00, 0x00,  # mov eax, 20   (getpid in the i386 table; x86-64's is 39)
    0xCD, 0x80,                    # int 0x80     (the 32-bit gate: the kernel takes eax as an i386 number)
    0xC3,                          # ret          (eax: the pid, or -errno)
])
_pages = []  # the pages stay mapped while the process lives


def native(code):
    """``code`` as a callable C function, in an executable page of its own."""
    size = mmap.PAGESIZE
    try:
        page = mmap.mmap(-1, size, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        page.write(code)
        address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    except OSError:  # writable and executable at once refused: write it, then make it executable only
        page = mmap.mmap(-1, size, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        page.write(code)
        address = ctypes.addressof(ctypes.c_char.from_buffer(page))
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        if libc.mprotect(address, size, mmap.PROT_READ | mmap.PROT_EXEC) != 0:
            raise OSError(ctypes.get_errno(), "mprotect")
    _pages.append(page)
    return ctypes.CFUNCTYPE(ctypes.c_int)(address)


def probe():
    # native code runs at all (so a death below is the int 0x80's, not the page's)
    print("RAN native code:", native(CODE_42)(), file=sys.stderr, flush=True)
    int80_getpid = native(CODE_INT80_GETPID)
    print("BEFORE int 0x80", file=sys.stderr, flush=True)
    result = int80_getpid()
    print("AFTER int 0x80 returned", result, "pid", os.getpid(), file=sys.stderr, flush=True)
'''

X32_PROBE = r'''
import ctypes, os, sys

libc = ctypes.CDLL(None, use_errno=True)
X32_SYSCALL_BIT = 0x40000000


def probe():
    ctypes.set_errno(0)
    x86_64 = libc.syscall(39)  # getpid through the x86-64 ABI: allowed
    ctypes.set_errno(0)
    x32 = libc.syscall(X32_SYSCALL_BIT | 39)  # getpid through the x32 ABI
    print("X32 x86-64 getpid", x86_64, "x32 getpid", x32, "errno", ctypes.get_errno(), "pid", os.getpid(),
          file=sys.stderr, flush=True)
'''

BOT_MAIN = """
import arena_bot


def act(observation, legal_actions):
    probe()
    return 0


arena_bot.run(act)
"""

INT80_ANSWER = re.compile(r"AFTER int 0x80 returned (-?\d+) pid (\d+)")
X32_ANSWER = re.compile(r"X32 x86-64 getpid (-?\d+) x32 getpid (-?\d+) errno (\d+) pid (\d+)")


def _outside(probe: str) -> subprocess.CompletedProcess:
    """The probe run by the host's plain Python, under no filter of ours."""
    return subprocess.run([sys.executable, "-I", "-S", "-c", probe + "\nprobe()\n"], capture_output=True,
                          text=True, timeout=30, stdin=subprocess.DEVNULL)


def _int80_outside() -> int:
    """The pid ``int 0x80`` gave outside the filter; skips when the kernel cannot run it at all."""
    result = _outside(INT80_PROBE)
    assert "RAN native code: 42" in result.stderr, result.stderr  # the probe itself works here
    if result.returncode == -signal.SIGSEGV and "BEFORE int 0x80" in result.stderr:
        pytest.skip("this kernel has no IA32 emulation (int 0x80 faults, SIGSEGV, before any filter sees it); "
                    "test_filter_verdicts covers the rule")
    if result.returncode == -signal.SIGSYS:
        pytest.skip("the host itself runs under a seccomp filter that kills int 0x80 (SIGSYS outside the "
                    "sandbox): the sandbox's own rule cannot be told apart; test_filter_verdicts covers it")
    assert result.returncode == 0, (result.returncode, result.stderr)
    answer = INT80_ANSWER.search(result.stderr)
    assert answer, result.stderr
    result, pid = int(answer[1]), int(answer[2])
    assert result == pid, f"int 0x80 getpid returned {result} outside the filter, the process is {pid}"
    return pid


def _sandboxed(tmp_path, probe: str) -> ProgramBot:
    bot = ProgramBot.from_path(write_bot(tmp_path / "probe", probe + BOT_MAIN), limits=LIMITS)
    bot.start("count", 0, 1, {})
    return bot


# --- 32-bit calls: int 0x80 ------------------------------------------------------------------------

@x86_64_only
def test_int80_outside_the_filter_returns_the_pid():
    """The control: unfiltered, the probe's ``int 0x80`` is i386 getpid and returns the caller's pid (so it
    reaches the kernel and the sandboxed test's death is the filter's doing)."""
    assert _int80_outside() > 0


@x86_64_only
@pytest.mark.sandbox
def test_int80_in_the_sandbox_kills_the_bot_with_sigsys(tmp_path):
    """Inside the sandbox the same call kills the bot (SECCOMP_RET_KILL_PROCESS: SIGSYS) before it returns."""
    _int80_outside()  # skips where the kernel would not run it anyway
    bot = _sandboxed(tmp_path, INT80_PROBE)
    try:
        with pytest.raises(BotFault) as info:
            bot.act({}, [1, 2, 3])
    finally:
        bot.close()
    fault = info.value
    assert fault.kind == "crash" and "was killed by signal SIGSYS" in fault.detail, (fault.detail, fault.stderr_tail)
    assert "RAN native code: 42" in fault.stderr_tail and "BEFORE int 0x80" in fault.stderr_tail, fault.stderr_tail
    assert "AFTER int 0x80" not in fault.stderr_tail, fault.stderr_tail


# --- x32 calls -----------------------------------------------------------------------------------

@x86_64_only
@pytest.mark.sandbox
def test_x32_call_in_the_sandbox_is_enosys(tmp_path):
    """An x32 getpid answers -1/ENOSYS in the sandbox, where the x86-64 getpid works.

    Most kernels are built without x32 (CONFIG_X86_X32_ABI), and answer ENOSYS to it anyway: there this
    test documents the rule (test_filter_verdicts checks it exactly). The control outside the sandbox shows
    which kind of kernel this is; where x32 works outside, the ENOSYS inside is the filter's.
    """
    outside = _outside(X32_PROBE)
    assert outside.returncode == 0, outside.stderr
    answer = X32_ANSWER.search(outside.stderr)
    assert answer, outside.stderr
    x86_64, x32, error, pid = map(int, answer.groups())
    assert x86_64 == pid
    x32_enabled = x32 == pid
    assert x32_enabled or (x32, error) == (-1, errno.ENOSYS), f"x32 getpid outside: {x32}, errno {error}"

    bot = _sandboxed(tmp_path, X32_PROBE)
    try:
        assert bot.act({}, [1, 2, 3]) == 0
        tail = bot.stderr_tail()
    finally:
        bot.close()
    answer = X32_ANSWER.search(tail)
    assert answer, tail
    x86_64, x32, error, pid = map(int, answer.groups())
    assert x86_64 == pid > 0, tail  # ordinary calls go through
    assert (x32, error) == (-1, errno.ENOSYS), f"x32 getpid in the sandbox (x32 enabled outside: {x32_enabled}): {tail}"


# --- the filter program itself -------------------------------------------------------------------

# Classic BPF (linux/filter.h, linux/bpf_common.h), spelled out here rather than taken from the module.
BPF_LD, BPF_JMP, BPF_RET = 0x00, 0x05, 0x06
BPF_W, BPF_ABS, BPF_K = 0x00, 0x20, 0x00
BPF_JEQ, BPF_JGE, BPF_JSET = 0x10, 0x30, 0x40
LD_W_ABS = BPF_LD | BPF_W | BPF_ABS
JEQ_K, JGE_K, JSET_K = BPF_JMP | BPF_JEQ | BPF_K, BPF_JMP | BPF_JGE | BPF_K, BPF_JMP | BPF_JSET | BPF_K
RET_K = BPF_RET | BPF_K
BPF_MAXINSNS = 4096

# linux/seccomp.h's verdicts and linux/audit.h's architectures
RET_KILL_PROCESS, RET_ERRNO, RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64 = 0xC000003E, 0x40000003, 0xC00000B7
X32 = 0x40000000  # __X32_SYSCALL_BIT

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET, SIGCHLD = 0x00020000, 0x10000000, 0x40000000, 17
# glibc's pthread_create: VM FS FILES SIGHAND THREAD SYSVSEM SETTLS PARENT_SETTID CHILD_CLEARTID
CLONE_THREAD_FLAGS = 0x003D0F00


def decode(program: bytes) -> list[tuple[int, int, int, int]]:
    """``struct sock_filter`` array → (code, jt, jf, k), checked as the kernel checks a seccomp filter: not
    empty nor too long, jumps inside the program, ending with a return."""
    assert program and len(program) % 8 == 0 and len(program) // 8 <= BPF_MAXINSNS
    instructions = list(struct.iter_unpack("<HBBI", program))
    for pc, (code, jt, jf, k) in enumerate(instructions):
        if code in (JEQ_K, JGE_K, JSET_K):
            assert pc + 1 + max(jt, jf) < len(instructions), f"instruction {pc} jumps past the end"
    assert instructions[-1][0] == RET_K, "the last instruction must return"
    return instructions


def run_filter(program: bytes, nr: int, arch: int, args: tuple[int, ...] = ()) -> int:
    """The filter's verdict on one call: a minimal classic-BPF interpreter over ``struct seccomp_data``
    (int nr, u32 arch, u64 instruction_pointer, u64 args[6]; little-endian), knowing only the opcodes the
    module emits (any other fails the test: extend the interpreter along with the module)."""
    data = struct.pack("<iIQ6Q", nr, arch, 0x401000, *(tuple(args) + (0,) * 6)[:6])
    instructions = decode(program)
    pc, acc = 0, 0
    while True:  # classic BPF jumps forward only: this ends
        code, jt, jf, k = instructions[pc]
        if code == LD_W_ABS:
            assert k % 4 == 0 and k + 4 <= len(data), f"load at offset {k}"
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif code in (JEQ_K, JGE_K, JSET_K):
            taken = acc == k if code == JEQ_K else acc >= k if code == JGE_K else bool(acc & k)
            pc += 1 + (jt if taken else jf)
        elif code == RET_K:
            return k
        else:
            raise AssertionError(f"opcode {code:#06x} at {pc}: not one the interpreter knows")


def errno_verdict(number: int) -> int:
    return RET_ERRNO | number


VERDICTS = [
    # (id, nr, arch, args, verdict)
    ("getpid", 39, AUDIT_ARCH_X86_64, (), RET_ALLOW),
    ("getpid with CLONE_NEWUSER's bit in arg0", 39, AUDIT_ARCH_X86_64, (CLONE_NEWUSER,), RET_ALLOW),
    ("unshare(CLONE_NEWUSER)", 272, AUDIT_ARCH_X86_64, (CLONE_NEWUSER,), errno_verdict(errno.EPERM)),
    ("unshare(CLONE_NEWUSER|CLONE_NEWNS)", 272, AUDIT_ARCH_X86_64, (CLONE_NEWUSER | CLONE_NEWNS,),
     errno_verdict(errno.EPERM)),
    # the flags' low 32 bits are read (little-endian offset): high bits set do not hide the flag
    ("unshare(CLONE_NEWUSER) high word set", 272, AUDIT_ARCH_X86_64, ((1 << 32) | CLONE_NEWUSER,),
     errno_verdict(errno.EPERM)),
    ("unshare(CLONE_NEWNET)", 272, AUDIT_ARCH_X86_64, (CLONE_NEWNET,), RET_ALLOW),
    ("unshare(CLONE_NEWNS)", 272, AUDIT_ARCH_X86_64, (CLONE_NEWNS,), RET_ALLOW),
    ("clone(SIGCHLD) fork", 56, AUDIT_ARCH_X86_64, (SIGCHLD,), RET_ALLOW),
    ("clone thread", 56, AUDIT_ARCH_X86_64, (CLONE_THREAD_FLAGS,), RET_ALLOW),
    ("clone(CLONE_NEWUSER|SIGCHLD)", 56, AUDIT_ARCH_X86_64, (CLONE_NEWUSER | SIGCHLD,), errno_verdict(errno.EPERM)),
    ("clone with CLONE_NEWUSER's bit in arg1 only", 56, AUDIT_ARCH_X86_64, (SIGCHLD, CLONE_NEWUSER), RET_ALLOW),
    ("clone3", 435, AUDIT_ARCH_X86_64, (0x7FFF0000, 88), errno_verdict(errno.ENOSYS)),
    ("x32 getpid", X32 | 39, AUDIT_ARCH_X86_64, (), errno_verdict(errno.ENOSYS)),
    ("x32 unshare(CLONE_NEWUSER)", X32 | 272, AUDIT_ARCH_X86_64, (CLONE_NEWUSER,), errno_verdict(errno.ENOSYS)),
    ("x32 clone3", X32 | 435, AUDIT_ARCH_X86_64, (), errno_verdict(errno.ENOSYS)),
    ("i386 getpid", 20, AUDIT_ARCH_I386, (), RET_KILL_PROCESS),
    # i386's unshare is 310 (x86-64's process_vm_readv): a filter on numbers alone would let it through
    ("i386 unshare(CLONE_NEWUSER)", 310, AUDIT_ARCH_I386, (CLONE_NEWUSER,), RET_KILL_PROCESS),
    ("i386 with x86-64's getpid number", 39, AUDIT_ARCH_I386, (), RET_KILL_PROCESS),
    ("aarch64 getpid", 172, AUDIT_ARCH_AARCH64, (), RET_KILL_PROCESS),
    ("aarch64 unshare(CLONE_NEWUSER)", 97, AUDIT_ARCH_AARCH64, (CLONE_NEWUSER,), RET_KILL_PROCESS),
]


@pytest.mark.parametrize("nr, arch, args, verdict", [pytest.param(*case[1:], id=case[0]) for case in VERDICTS])
def test_filter_verdicts(nr, arch, args, verdict):
    """Each rule's exact verdict, by running the filter bubblewrap loads over one synthetic call (no kernel
    needed; runs on any machine). Another ABI kills the whole process (not just the thread: the rest of the
    bot would go on), whatever the call."""
    got = run_filter(seccomp.no_new_user_namespaces(), nr, arch, args)
    assert got == verdict, f"verdict {got:#010x}, expected {verdict:#010x}"


def test_filter_uses_only_the_interpreted_opcodes():
    """The filter decodes, passes the kernel's shape checks and uses only the opcodes run_filter knows."""
    codes = {code for code, _, _, _ in decode(seccomp.no_new_user_namespaces())}
    assert codes <= {LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K}, sorted(map(hex, codes))
