"""`rack plot` of a file of 200,000 ramps used to write an 87–199 MB SVG (a path
per ramp and per hold) using 433–843 MB of memory. A lane is 900 pixels wide: what cannot be
told apart is merged (each bucket of about two pixels keeps its first, lowest, highest and last
values), so the picture and the memory stay bounded and every peak is still drawn."""
from __future__ import annotations

import os
import re
import subprocess

RAMPS = 200_000


def test_a_plot_of_200000_ramps_is_small_and_keeps_the_peaks(rack_binary, tmp_path):
    lines = [f"{i * 0.05:.2f} /rack/cutoff {200 + (i * 37) % 9000} 0.02" for i in range(RAMPS)]
    # One trough, to the bottom of the range (the rest stay within 200 Hz…9.2 kHz).
    lines[RAMPS // 2] = f"{RAMPS // 2 * 0.05:.2f} /rack/cutoff 12 0.02"
    source = tmp_path / "ramps.txt"
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / "ramps.svg"
    proc = subprocess.Popen([str(rack_binary), "plot", str(source), "-o", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode()
    assert proc.returncode == 0, stderr
    size = out.stat().st_size
    rss_mb = usage.ru_maxrss / 1024
    print(f"{RAMPS} ramps: SVG {size / 1e6:.2f} MB, peak RSS {rss_mb:.0f} MB")
    assert size < 2_000_000, f"SVG of {size} bytes"
    assert rss_mb < 300, f"peak RSS {rss_mb:.0f} MB"
    svg = out.read_text()
    lane = svg[svg.index('id="lane-cutoff"'):]
    bottom = float(re.search(r'data-bottom="([0-9.]+)"', lane).group(1))
    # The trough to 12 Hz, a 20 ms ramp in 10,000 s, is drawn: the curve reaches the lane's bottom.
    paths = re.findall(r'<path d="([^"]+)"[^>]*class="(?:ramp|hold)"', lane[:lane.index("</g>")])
    ys = [float(y) for d in paths for y in re.findall(r"[ML]-?[0-9.]+ (-?[0-9.]+)", d)]
    assert ys and max(ys) >= bottom - 0.5, (bottom, max(ys) if ys else None)


def test_a_plot_of_a_file_with_errors_draws_what_parses_marks_the_problem_and_exits_65(rack_binary, tmp_path):
    # docs/choices.md: "rack plot on a file with errors draws what parses, marks each problem in
    # red, writes the picture and exits 65".
    source = tmp_path / "bad.txt"
    source.write_text("0 /rack/cutoff 800\n1 /rack/cutoff 2000 0.5\n2 /rack/bogus 3\n")
    out = tmp_path / "bad.svg"
    proc = subprocess.run([str(rack_binary), "plot", str(source), "-o", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 65, (proc.returncode, proc.stderr)
    assert "bad.txt:3:" in proc.stderr, proc.stderr
    assert out.is_file() and out.stat().st_size > 0, "the picture is written"
    svg = out.read_text()
    assert svg.rstrip().endswith("</svg>"), svg[-200:]
    lane = svg[svg.index('id="lane-cutoff"'):]
    lane = lane[:lane.index("</g>")]
    assert 'class="ramp"' in lane, "the ramp that parses is drawn"
    red = re.findall(r'<line [^>]*stroke="#d0021b"[^>]*class="problem-line error"', svg)
    assert red, "the problem is marked in red"
