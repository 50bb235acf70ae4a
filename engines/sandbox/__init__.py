"""Running untrusted bot programs: the package checker, the sandboxed ``ProgramBot``, the protocol bench.

Importable without Django. The upload calls ``check_package(data, filename)`` (a ``BotPackage`` or a
``PackageError`` with a message for the user) and ``BotPackage.store(folder)``; matches run
``ProgramBot(folder, package.command)`` or ``ProgramBot.from_path(path)``. ``sandbox_problem()`` says why
the sandbox cannot run here (None when it can); untrusted code is then refused with
``SandboxUnavailable`` unless ``trusted=True``.
"""
from .package import DEFAULT_LIMITS as DEFAULT_PACKAGE_LIMITS
from .package import BotPackage, PackageError, PackageLimits, check_package, package_from_folder
from .runner import DEFAULT_LIMITS, ProgramBot, SandboxLimits, SandboxUnavailable, sandbox_problem

__all__ = [
    "BotPackage", "PackageError", "PackageLimits", "check_package", "package_from_folder",
    "DEFAULT_PACKAGE_LIMITS", "DEFAULT_LIMITS", "ProgramBot", "SandboxLimits", "SandboxUnavailable",
    "sandbox_problem",
]
