/// The page: static structure only; the faders are built from the OSCQuery namespace by app.js,
/// so their ranges and units come from rack's parameter table.
let pageHTML = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>rack</title>
<link rel="icon" href="/ui/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/style.css">
<script src="/ui/osc.js" defer></script>
<script src="/ui/app.js" defer></script>
<script src="/ui/racks.js" defer></script>
</head>
<body>
<header>
  <h1 id="title">rack</h1>
  <p id="connection" role="status" aria-live="polite">connecting…</p>
</header>
<main>
  <section aria-labelledby="h-params">
    <h2 id="h-params">Parameters</h2>
    <div id="faders"></div>
    <div class="row">
      <label for="room">room</label>
      <select id="room" aria-label="reverb room"></select>
    </div>
  </section>
  <section aria-labelledby="h-presets">
    <h2 id="h-presets">Presets</h2>
    <div class="row">
      <label for="preset">preset</label>
      <select id="preset" aria-label="preset to recall"></select>
      <button id="recall" type="button">Recall</button>
    </div>
    <div class="row">
      <label for="preset-name">save as</label>
      <input id="preset-name" type="text" maxlength="64" autocomplete="off" placeholder="name" aria-label="name of the preset to save">
      <button id="save" type="button">Save</button>
    </div>
  </section>
  <section aria-labelledby="h-player">
    <h2 id="h-player">Player</h2>
    <div class="row">
      <button id="play" type="button" aria-label="play">▶ Play</button>
      <button id="stop" type="button" aria-label="stop">■ Stop</button>
      <label class="check"><input id="loop" type="checkbox" checked aria-label="loop the file"> loop</label>
      <output id="position" aria-label="player position">0.0 s</output>
    </div>
  </section>
  <section aria-labelledby="h-meters">
    <h2 id="h-meters">Output</h2>
    <div class="meters">
      <label for="peak-l">peak L</label><meter id="peak-l" min="-60" max="0" low="-18" high="-6" optimum="-30" value="-60" aria-label="peak left, dBFS"></meter><output id="peak-l-text" for="peak-l">−∞</output>
      <label for="peak-r">peak R</label><meter id="peak-r" min="-60" max="0" low="-18" high="-6" optimum="-30" value="-60" aria-label="peak right, dBFS"></meter><output id="peak-r-text" for="peak-r">−∞</output>
      <label for="rms-l">RMS L</label><meter id="rms-l" min="-60" max="0" low="-18" high="-6" optimum="-30" value="-60" aria-label="RMS left, dBFS"></meter><output id="rms-l-text" for="rms-l">−∞</output>
      <label for="rms-r">RMS R</label><meter id="rms-r" min="-60" max="0" low="-18" high="-6" optimum="-30" value="-60" aria-label="RMS right, dBFS"></meter><output id="rms-r-text" for="rms-r">−∞</output>
    </div>
    <p class="stats">DSP load <output id="dsp" aria-label="DSP load">0 %</output> · xruns <output id="xruns" aria-label="xruns">0</output> · <output id="jack" aria-label="JACK state">—</output></p>
  </section>
  <section aria-labelledby="h-studio">
    <h2 id="h-studio">Racks in this studio</h2>
    <ul id="racks" aria-live="polite"></ul>
    <p id="racks-note" class="stats">looking…</p>
  </section>
  <p id="message" role="alert" aria-live="assertive"></p>
</main>
</body>
</html>
"""#
