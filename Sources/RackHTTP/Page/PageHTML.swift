/// The page: static structure only. The parameter sections (one per `GROUP` of the namespace,
/// with their faders, switches and choices) and the pictures are built by controls.js from the
/// OSCQuery namespace and `/ui/pictures.json`, so they follow rack's parameter table.
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
<script src="/ui/controls.js" defer></script>
<script src="/ui/panels.js" defer></script>
<script src="/ui/racks.js" defer></script>
</head>
<body class="offline">
<header>
  <h1 id="title">rack</h1>
  <p id="connection" role="status" aria-live="polite">connecting…</p>
</header>
<p id="message" role="alert" aria-live="assertive"></p>
<main id="surface">
  <div id="groups" class="groups"></div>
  <section aria-labelledby="h-presets">
    <h2 id="h-presets">Presets</h2>
    <div class="row">
      <label for="preset">preset</label>
      <select id="preset" aria-label="preset to recall or delete"></select>
      <button id="recall" type="button">Recall</button>
      <button id="delete" type="button" class="danger">Delete…</button>
    </div>
    <div class="row confirm" id="delete-confirm" hidden>
      <span id="delete-question">Delete?</span>
      <button id="delete-yes" type="button" class="danger">Yes, delete</button>
      <button id="delete-no" type="button">Cancel</button>
    </div>
    <p class="note" id="note-preset" role="status" aria-live="polite"></p>
    <div class="row">
      <label for="preset-name">save as</label>
      <input id="preset-name" type="text" maxlength="64" autocomplete="off" placeholder="name" aria-label="name of the preset to save" aria-describedby="note-save">
      <button id="save" type="button">Save</button>
    </div>
    <p class="note" id="note-save" role="status" aria-live="polite"></p>
  </section>
  <section aria-labelledby="h-player">
    <h2 id="h-player">Player</h2>
    <div class="row">
      <button id="play" type="button" aria-label="play">▶ Play</button>
      <button id="stop" type="button" aria-label="stop">■ Stop</button>
      <label class="check"><input id="loop" type="checkbox" checked aria-label="loop the file"> loop</label>
      <output id="position" aria-label="player position">0.0 s</output>
    </div>
    <p class="stats"><output id="transport" aria-label="what the player does">—</output></p>
    <div class="row">
      <label for="media">file</label>
      <select id="media" aria-label="file to load from the media directories"></select>
      <button id="load" type="button">Load</button>
    </div>
    <p class="note" id="note-player" role="status" aria-live="polite"></p>
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
</main>
</body>
</html>
"""#
