"""Input the engine cannot serve, live: a JACK server at a sample rate outside the engine's
range ends `rack run` with one line and exit 69, never a trap."""
from __future__ import annotations

import os
import subprocess

import livelib


def test_run_on_a_server_at_an_unsupported_rate_is_one_line_and_69(tmp_path, rack_binary):
    server = f"rack-4k-{os.getpid()}"
    try:
        pid = livelib.start_jack(server, 4000, 256)
    except RuntimeError as e:   # the dummy driver must accept the rate for this test to mean anything
        raise AssertionError(f"cannot start a 4 kHz dummy JACK server: {e}")
    try:
        env = livelib.jack_env(server, XDG_CONFIG_HOME=str(tmp_path / "xdg"))
        out = subprocess.run([str(rack_binary), "run", "--name", "slow", "--osc-port", "0"], capture_output=True,
                             text=True, timeout=20, env=env)
        assert out.returncode == 69, (out.returncode, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("rack: ") and "4000 Hz" in lines[0], out.stderr
        assert "slow" not in " ".join(livelib.jack_port_list(server)), "the client is gone"
    finally:
        livelib.stop_jack(pid)
