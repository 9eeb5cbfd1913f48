"""deploy/Containerfile carried out without a container engine: its steps in a Debian root made by
debootstrap (`FROM debian:bookworm-slim` is Debian's minbase), its process started with chroot and
the image's environment, user and working directory.

Only the instructions the Containerfile uses are known (FROM, WORKDIR, COPY, RUN, ENV, USER, VOLUME,
EXPOSE, HEALTHCHECK, CMD); any other is an error, so the check cannot silently skip a step.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

SUITES = {"debian:bookworm-slim": "bookworm"}
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
HOST_DEBIAN_SOURCES = Path("/etc/apt/sources.list.d/debian.sources")


def instructions(containerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) for each instruction, with `\\` continuations joined."""
    joined, pending = [], ""
    for line in containerfile.read_text().splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    out = []
    for line in joined:
        word, _, rest = line.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def debian_mirror() -> str:
    """The Debian mirror this machine's apt uses."""
    if HOST_DEBIAN_SOURCES.exists():
        for line in HOST_DEBIAN_SOURCES.read_text().splitlines():
            if line.startswith("URIs:") and "security" not in line:
                return line.split()[1]
    for line in Path("/etc/apt/sources.list").read_text().splitlines():
        if line.startswith("deb ") and "security" not in line:
            return line.split()[1]
    raise RuntimeError("no Debian mirror in /etc/apt/sources.list*")


@dataclass
class Image:
    """A Debian root after the Containerfile's steps, with what they said about running it."""

    root: Path
    env: dict[str, str] = field(default_factory=lambda: {"PATH": DEFAULT_PATH})
    user: str = "root"
    workdir: str = "/"
    volumes: list[str] = field(default_factory=list)
    exposed: list[str] = field(default_factory=list)
    healthcheck: str = ""
    cmd: list[str] = field(default_factory=list)

    def command(self, argv: list[str], env: Mapping[str, str] | None = None) -> list[str]:
        """`argv` as the image runs it: chrooted, as its user, in its working directory, with only its
        environment (plus `env`, as `docker run -e`)."""
        variables = [f"{k}={v}" for k, v in {**self.env, "HOME": self.workdir, **(env or {})}.items()]
        inner = f"cd {shlex.quote(self.workdir)} && exec {shlex.join(argv)}"
        return [
            "chroot",
            f"--userspec={self.user}:{self.user}",
            str(self.root),
            "/usr/bin/env",
            "-i",
            *variables,
            "/bin/sh",
            "-c",
            inner,
        ]


@contextlib.contextmanager
def mounted(root: Path, binds: Mapping[str, str]) -> Iterator[None]:
    """/proc, /dev, /sys (read-only) and read-only `binds` (host path -> path in root) for the time
    of a step or of a run, as a container has them."""
    done: list[Path] = []
    try:
        for options, target in [
            (["-t", "proc", "proc"], "proc"),
            (["--bind", "/dev"], "dev"),
            (["-t", "sysfs", "-o", "ro", "sysfs"], "sys"),
        ]:
            path = root / target
            path.mkdir(exist_ok=True)
            subprocess.run(["mount", *options, str(path)], check=True)
            done.append(path)
        for source, target in binds.items():
            path = root / target.lstrip("/")
            path.mkdir(parents=True, exist_ok=True)
            subprocess.run(["mount", "--bind", "-o", "ro", source, str(path)], check=True)
            done.append(path)
        yield
    finally:
        for path in reversed(done):
            subprocess.run(["umount", "-l", str(path)], check=False)


def build(
    containerfile: Path,
    context: Path,
    root: Path,
    build_env: Mapping[str, str],
    binds: Mapping[str, str],
    progress: Callable[[str], None],
) -> Image:
    """Carry out every step of `containerfile` with `context` as the build context into `root`.
    `build_env` and `binds` are the build's access to packages (as a builder's network would be)."""
    image = Image(root)
    for word, args in instructions(containerfile):
        progress(f"{word} {args}")
        if word == "FROM":
            suite = SUITES[args]
            subprocess.run(
                ["debootstrap", "--variant=minbase", suite, str(root), debian_mirror()], check=True, capture_output=True
            )
            if HOST_DEBIAN_SOURCES.exists():  # the image's own sources: the suite, its updates and security
                shutil.copy(HOST_DEBIAN_SOURCES, root / "etc/apt/sources.list.d/debian.sources")
                (root / "etc/apt/sources.list").unlink(missing_ok=True)
        elif word == "WORKDIR":
            image.workdir = str(Path(image.workdir, args))
            (root / image.workdir.lstrip("/")).mkdir(parents=True, exist_ok=True)
        elif word == "COPY":
            *sources, target = shlex.split(args)
            destination = root / str(Path(image.workdir, target)).lstrip("/")
            for source in sources:
                path = context / source
                if path.is_dir():
                    shutil.copytree(
                        path,
                        destination,
                        dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
                    )
                else:
                    destination.mkdir(parents=True, exist_ok=True)
                    shutil.copy(path, destination / path.name)
        elif word == "RUN":
            with mounted(root, binds):
                argv = [
                    "chroot",
                    str(root),
                    "/usr/bin/env",
                    "-i",
                    *(f"{k}={v}" for k, v in {**image.env, **build_env}.items()),
                    "/bin/sh",
                    "-c",
                    f"cd {shlex.quote(image.workdir)} && {args}",
                ]
                subprocess.run(argv, check=True)
        elif word == "ENV":
            for pair in shlex.split(args):
                name, _, value = pair.partition("=")
                image.env[name] = value
        elif word == "USER":
            image.user = args
        elif word == "VOLUME":
            image.volumes += json.loads(args) if args.startswith("[") else args.split()
        elif word == "EXPOSE":
            image.exposed += args.split()
        elif word == "HEALTHCHECK":
            image.healthcheck = args.partition(" CMD ")[2]
        elif word == "CMD":
            image.cmd = json.loads(args)
        else:
            raise ValueError(f"{containerfile}: instruction {word} is not known to this check")
    return image
