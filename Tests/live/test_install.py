"""scripts/install into a temporary prefix: what it puts where, rack run from PATH finds the
installed factory presets, the user unit points at the installed binary, and --uninstall
removes everything it installed (an empty prefix stays empty)."""
from __future__ import annotations

import os
import shutil
import subprocess

import livelib

INSTALL = livelib.REPO / "scripts" / "install"


def test_install_and_uninstall_into_a_prefix(tmp_path, rack_binary):
    prefix = tmp_path / "prefix"
    prefix.mkdir()
    env = dict(os.environ, RACK_BIN=str(rack_binary))
    env.pop("RACK_PRESETS", None)
    out = subprocess.run([str(INSTALL), str(prefix)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    for rel in ["bin/rack", "share/rack/presets/Warm.json", "share/rack/presets/Dry.json", "share/man/man1/rack.1",
                "share/bash-completion/completions/rack", "share/zsh/site-functions/_rack",
                "share/fish/vendor_completions.d/rack.fish", "lib/systemd/user/rack.service",
                "share/rack/rack.env.example", "lib/lv2/rack.lv2/manifest.ttl", "lib/lv2/rack.lv2/rack.ttl",
                "lib/lv2/rack.lv2/presets.ttl", "lib/lv2/rack.lv2/librack-lv2.so", "lib/clap/rack.clap"]:
        assert (prefix / rel).is_file(), rel
    assert os.access(prefix / "bin/rack", os.X_OK)
    unit = (prefix / "lib/systemd/user/rack.service").read_text()
    assert f"ExecStart={prefix}/lib/rack/rack-service {prefix}/bin/rack run $RACK_OPTIONS" in unit, unit
    assert os.access(prefix / "lib/rack/rack-service", os.X_OK)
    assert "EnvironmentFile=-%h/.config/rack/rack.env" in unit and "Restart=on-failure" in unit

    # Run from PATH, from a directory far from the source tree: the installed presets are found.
    run_env = {k: v for k, v in env.items() if k != "RACK_BIN"}
    run_env.update(PATH=f"{prefix / 'bin'}:{os.environ.get('PATH', '')}", XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    listed = subprocess.run(["rack", "presets", "list"], capture_output=True, text=True, env=run_env,
                            cwd=tmp_path, timeout=30)
    assert listed.returncode == 0, listed.stderr
    assert "Warm" in listed.stdout and "Dry" in listed.stdout, listed.stdout
    # ...and they are the installed ones, not the source tree's.
    (prefix / "share/rack/presets/Dry.json").unlink()
    listed = subprocess.run(["rack", "presets", "list"], capture_output=True, text=True, env=run_env,
                            cwd=tmp_path, timeout=30)
    assert "Warm" in listed.stdout and "Dry" not in listed.stdout, listed.stdout
    shutil.copy(livelib.REPO / "Presets" / "Dry.json", prefix / "share/rack/presets/Dry.json")

    if shutil.which("systemd-analyze"):
        verify = subprocess.run(["systemd-analyze", "verify", str(prefix / "lib/systemd/user/rack.service")],
                                capture_output=True, text=True, timeout=30)
        problems = [l for l in verify.stderr.splitlines() if l.strip() and "man rack(1)" not in l]
        assert problems == [], verify.stderr

    # Installing again over the top is fine; uninstalling leaves the prefix as it was: empty.
    out = subprocess.run([str(INSTALL), str(prefix)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    out = subprocess.run([str(INSTALL), "--uninstall", str(prefix)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    left = sorted(str(p.relative_to(prefix)) for p in prefix.rglob("*"))
    assert left == [], left
    out = subprocess.run([str(INSTALL), "--uninstall", str(prefix)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 66, "uninstalling nothing says so"


def test_install_keeps_what_was_there(tmp_path, rack_binary):
    """Uninstall removes only what the install created: a directory that existed stays."""
    prefix = tmp_path / "usr-local"
    (prefix / "share" / "man" / "man1").mkdir(parents=True)
    (prefix / "share" / "man" / "man1" / "other.1").write_text(".TH OTHER 1\n")
    env = dict(os.environ, RACK_BIN=str(rack_binary))
    assert subprocess.run([str(INSTALL), str(prefix)], capture_output=True, env=env, timeout=120).returncode == 0
    assert subprocess.run([str(INSTALL), "--uninstall", str(prefix)], capture_output=True, env=env, timeout=60).returncode == 0
    left = sorted(str(p.relative_to(prefix)) for p in prefix.rglob("*"))
    assert left == ["share", "share/man", "share/man/man1", "share/man/man1/other.1"], left


def test_install_the_lv2_plugin_alone(tmp_path, rack_binary):
    """--lv2 DIR installs rack.lv2 into DIR (a user's ~/.lv2) and lilv finds it there;
    --uninstall --lv2 DIR removes it and leaves DIR as it was."""
    lv2 = tmp_path / "dot-lv2"
    env = dict(os.environ, RACK_BIN=str(rack_binary))
    out = subprocess.run([str(INSTALL), "--lv2", str(lv2)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (lv2 / "rack.lv2").iterdir()) == ["librack-lv2.so", "manifest.ttl", "presets.ttl", "rack.ttl"]
    if shutil.which("lv2ls"):
        listed = subprocess.run(["lv2ls"], capture_output=True, text=True, env=dict(os.environ, LV2_PATH=str(lv2)), timeout=60)
        assert "urn:rack:lv2" in listed.stdout.split(), listed.stdout + listed.stderr
    out = subprocess.run([str(INSTALL), "--uninstall", "--lv2", str(lv2)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert list(lv2.iterdir()) == []
    out = subprocess.run([str(INSTALL), "--uninstall", "--lv2", str(lv2)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 66, "uninstalling nothing says so"


def test_install_the_clap_plugin_alone(tmp_path, rack_binary):
    """--clap DIR installs rack.clap into DIR (a user's ~/.clap), the plugin built beside the
    binary; --uninstall --clap DIR removes it and leaves DIR as it was."""
    clap = tmp_path / "dot-clap"
    env = dict(os.environ, RACK_BIN=str(rack_binary))
    out = subprocess.run([str(INSTALL), "--clap", str(clap)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert [p.name for p in clap.iterdir()] == ["rack.clap"]
    assert (clap / "rack.clap").read_bytes() == (rack_binary.parent / "rack.clap").read_bytes()
    out = subprocess.run([str(INSTALL), "--uninstall", "--clap", str(clap)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert list(clap.iterdir()) == []
    out = subprocess.run([str(INSTALL), "--uninstall", "--clap", str(clap)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 66, "uninstalling nothing says so"


def test_destdir_stages_the_install_for_the_final_prefix(tmp_path, rack_binary):
    """The README: DESTDIR is honoured. Everything lands under DESTDIR + PREFIX, nothing in PREFIX
    itself, and the unit names the final PREFIX; uninstalling with the same DESTDIR empties it."""
    prefix, stage = tmp_path / "final", tmp_path / "stage"
    env = dict(os.environ, RACK_BIN=str(rack_binary), DESTDIR=str(stage))
    env.pop("RACK_PRESETS", None)
    out = subprocess.run([str(INSTALL), str(prefix)], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    staged = stage / prefix.relative_to("/")
    assert not prefix.exists(), "written outside DESTDIR"
    assert os.access(staged / "bin/rack", os.X_OK) and (staged / "lib/lv2/rack.lv2/librack-lv2.so").is_file()
    unit = (staged / "lib/systemd/user/rack.service").read_text()
    assert f"ExecStart={prefix}/lib/rack/rack-service {prefix}/bin/rack run $RACK_OPTIONS" in unit, unit
    out = subprocess.run([str(INSTALL), "--uninstall", str(prefix)], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert [p for p in staged.rglob("*") if p.is_file()] == []
