"""The Debian package as a user gets it: scripts/package builds rack_VERSION_ARCH.deb (VERSION
from Sources/rack/RackVersion.swift), lintian finds no error or warning in it, `apt-get install`
pulls its dependencies, and the installed rack runs from /usr/bin (its version, a render with a
factory preset found in /usr/share/rack, its example automation file), `man -w rack` finds the
page, lilv finds the plugin in /usr/lib/lv2 alone, `systemctl --user cat` finds the unit (without
a user manager: systemd's user search path holds its directory);
then `apt-get purge` leaves no file of the package, and whatever the install pulled in is purged
too: the machine is as it was. As root only; refused when rack is installed already or a file of
the package is on the machine (the test would replace, then remove it)."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

import livelib

PACKAGE = livelib.REPO / "scripts" / "package"
VERSION = re.search(r'static let release = "([^"]+)"',
                    (livelib.REPO / "Sources/rack/RackVersion.swift").read_text()).group(1)
APT_ENV = dict(os.environ, DEBIAN_FRONTEND="noninteractive")


def run(args, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("timeout", 300)
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def installed_packages() -> set[str]:
    out = run(["dpkg-query", "-W", "-f", "${db:Status-Status} ${Package}:${Architecture}\n"])
    return {line.split()[1] for line in out.stdout.splitlines() if line.startswith("installed ")}


def package_paths(deb: Path) -> dict[str, bool]:
    """The package's paths (absolute, the root left out), each with whether it is a directory."""
    paths = {}
    for line in run(["dpkg-deb", "-c", str(deb)]).stdout.splitlines():
        path = "/" + line.split(None, 5)[5].removeprefix("./").rstrip("/")
        if path != "/":
            paths[path] = line.startswith("d")
    return paths


def refusal(deb: Path) -> str | None:
    """Why this machine must not have the package installed and purged by a test, or None."""
    if any(p.split(":")[0] == "rack" for p in installed_packages()):
        return "a rack package is installed on this machine: the test would replace and purge it"
    for path, is_dir in package_paths(deb).items():
        if not is_dir and os.path.lexists(path):
            return f"{path} exists (from no package): installing and purging rack would remove it"
    return None


def test_package_installs_runs_and_purges(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root: installs and purges a Debian package")
    made = run([str(PACKAGE), str(tmp_path)], timeout=1200)
    assert made.returncode == 0, made.stderr
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    deb = Path(made.stdout.strip().splitlines()[-1])
    assert deb == tmp_path / f"rack_{VERSION}_{arch}.deb", made.stdout
    assert run(["dpkg-deb", "-f", str(deb), "Version"]).stdout.strip() == VERSION
    depends = run(["dpkg-deb", "-f", str(deb), "Depends"]).stdout
    assert "libjack" in depends and "liblo7" in depends and "libswift" not in depends, depends

    lint = run(["lintian", "--fail-on", "error,warning", str(deb)], timeout=600)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert not re.search(r"^[EW]: ", lint.stdout, re.M), lint.stdout

    reason = refusal(deb)
    if reason:
        pytest.skip(reason)
    before = installed_packages()
    # What was there before: directories other packages share (no file: refusal() saw to it).
    existed = {p for p in package_paths(deb) if os.path.lexists(p)}
    try:
        out = run(["apt-get", "install", "-y", "-q", f"./{deb.name}"], cwd=tmp_path, env=APT_ENV, timeout=900)
        assert out.returncode == 0, out.stdout + out.stderr
        listed = [p for p in run(["dpkg", "-L", "rack"]).stdout.splitlines() if p.startswith("/") and p != "/."]
        check_installed(tmp_path, set(listed))
    finally:
        purge = run(["apt-get", "purge", "-y", "-q", "rack"], env=APT_ENV, timeout=900)
        pulled = sorted(installed_packages() - before)
        if pulled:
            run(["apt-get", "purge", "-y", "-q", *pulled], env=APT_ENV, timeout=900)
    assert purge.returncode == 0, purge.stdout + purge.stderr
    assert installed_packages() - before == set(), f"left installed: {installed_packages() - before}"
    assert not any(p.split(":")[0] == "rack" for p in installed_packages())
    # Every path dpkg listed is gone, but for the directories that were there before.
    left = sorted(p for p in listed if os.path.lexists(p) and p not in existed)
    assert left == [], left
    gone = sorted(p for p in existed if not os.path.lexists(p))
    assert gone == [], gone


def user_manager_runs() -> bool:
    """Whether systemctl --user reaches a user manager (a login session has one; a container or
    a root shell without a session does not)."""
    return run(["systemctl", "--user", "show", "--property=Version"]).returncode == 0


def check_installed(tmp_path: Path, paths: set[str]) -> None:
    """What a user does with the installed package, from a directory far from the source tree."""
    env = {k: v for k, v in os.environ.items() if k not in ("RACK_BIN", "RACK_PRESETS")}
    env.update(PATH="/usr/bin:/bin", XDG_CONFIG_HOME=str(tmp_path / "xdg"), HOME=str(tmp_path))
    for path in ["/usr/bin/rack", "/usr/share/man/man1/rack.1.gz", "/usr/share/bash-completion/completions/rack",
                 "/usr/share/zsh/vendor-completions/_rack", "/usr/share/fish/vendor_completions.d/rack.fish",
                 "/usr/lib/systemd/user/rack.service", "/usr/lib/rack/rack-service", "/usr/share/rack/rack.env.example",
                 "/usr/share/rack/presets/Warm.json", "/usr/share/rack/examples/session.txt",
                 "/usr/share/doc/rack/copyright", "/usr/share/doc/rack/changelog.gz",
                 "/usr/lib/lv2/rack.lv2/manifest.ttl", "/usr/lib/lv2/rack.lv2/librack-lv2.so"]:
        assert path in paths, path
    assert "libswift" not in run(["ldd", "/usr/bin/rack"]).stdout, "the binary carries its Swift runtime"

    version = run(["rack", "--version"], env=env, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.split()[:2] == ["rack", VERSION], version.stdout
    presets = run(["rack", "presets", "list"], env=env, cwd=tmp_path)
    assert "Warm" in presets.stdout, presets.stdout + presets.stderr
    check = run(["rack", "check", "/usr/share/rack/examples/session.txt"], env=env, cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    source = tmp_path / "in.wav"
    subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", str(source), "synth", "0.5", "sine", "440"], check=True)
    render = run(["rack", "render", str(source), str(tmp_path / "out.wav"), "--preset", "Warm", "--tail", "0.5"],
                 env=env, cwd=tmp_path)
    assert render.returncode == 0, render.stderr
    frames = run(["soxi", "-s", str(tmp_path / "out.wav")]).stdout.strip()
    assert frames == "48000", frames

    man = run(["man", "-w", "rack"], env=env)
    assert man.stdout.strip() == "/usr/share/man/man1/rack.1.gz", man.stdout + man.stderr
    plugins = run(["lv2ls"], env=dict(env, LV2_PATH="/usr/lib/lv2"))
    assert "urn:rack:lv2" in plugins.stdout.split(), plugins.stdout + plugins.stderr

    unit = "/usr/lib/systemd/user/rack.service"
    assert "ExecStart=/usr/lib/rack/rack-service /usr/bin/rack run $RACK_OPTIONS" in Path(unit).read_text()
    if user_manager_runs():
        cat = run(["systemctl", "--user", "cat", "rack.service"])
        assert cat.returncode == 0 and unit in cat.stdout, cat.stdout + cat.stderr
    else:
        # No user manager here (a container, a root session): the unit is where every user
        # manager looks, by systemd's own list.
        search = run(["systemd-analyze", "--user", "unit-paths"]).stdout.split()
        assert "/usr/lib/systemd/user" in search, search
