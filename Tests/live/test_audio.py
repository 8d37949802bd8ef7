"""Sound comes out of out_1/out_2, and the filter audibly works, recorded through JACK."""
from __future__ import annotations


import numpy as np

import livelib


def _record(helpers, jack, rack, tmp_path, seconds=2.0, tag="rec"):
    ports = [f"{rack.client_name}:out_1", f"{rack.client_name}:out_2"]
    data, rate = livelib.record(helpers["jackrec"], jack.name, ports, seconds, tmp_path / f"{tag}.raw")
    assert rate == 48000
    assert len(data) == int(seconds * rate), f"recorded {len(data)} frames"
    return data


def test_demo_loop_is_audible_and_finite(helpers, jack, rack, tmp_path):
    data = _record(helpers, jack, rack, tmp_path)
    assert np.isfinite(data).all(), "NaN or Inf in the output"
    rms = np.sqrt((data.astype(np.float64) ** 2).mean(axis=0))
    assert (rms > 1e-3).all(), f"output (nearly) silent: rms per channel {rms}"
    assert np.abs(data).max() <= 4.0, f"implausibly loud output: peak {np.abs(data).max()}"


def test_low_cutoff_darkens_the_sound(helpers, jack, rack, osc, osc_factory, tmp_path):
    meters = osc_factory(rack.osc_port)
    meters.send("/rack/meter")
    osc.send("/rack/cutoff", 20000.0)
    assert livelib.close_to(osc.get("cutoff"), 20000)
    livelib.wait_ramps_over(meters)
    bright = _record(helpers, jack, rack, tmp_path, tag="bright")
    osc.send("/rack/cutoff", 200.0)
    assert livelib.close_to(osc.get("cutoff"), 200)
    livelib.wait_ramps_over(meters)
    dark = _record(helpers, jack, rack, tmp_path, tag="dark")
    meters.send("/rack/unsubscribe")
    assert np.isfinite(bright).all() and np.isfinite(dark).all()
    c_bright = livelib.spectral_centroid(bright, 48000)
    c_dark = livelib.spectral_centroid(dark, 48000)
    assert np.sqrt((dark ** 2).mean()) > 1e-4, "silent after the cutoff change"
    assert c_dark < 0.5 * c_bright, f"spectral centroid {c_dark:.0f} Hz at 200 Hz cutoff vs {c_bright:.0f} Hz at 20 kHz"
