/// The page's style: cards that flow into as many columns as the width allows (one on a
/// phone, two or three on a desktop), large touch targets; greyed out while rack is away.
let pageStyle = #"""
:root { color-scheme: dark; --bg: #11151c; --panel: #1c2330; --text: #e6edf3; --dim: #8b98a9; --accent: #6fc3ff;
        --ok: #7ddc8a; --error: #ffb86b; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.4 system-ui, sans-serif; }
header { display: flex; align-items: baseline; justify-content: space-between; gap: 1em; padding: 0.75em 1em 0;
         max-width: 1400px; margin: 0 auto; }
h1 { font-size: 1.4em; margin: 0; }
h2 { font-size: 1em; margin: 0 0 0.5em; color: var(--dim); text-transform: uppercase; letter-spacing: 0.08em; }
#connection { margin: 0; color: var(--dim); font-size: 0.9em; }
#connection.live { color: var(--ok); }
body.offline #connection { color: var(--error); font-weight: bold; }
body.offline main { opacity: 0.45; filter: grayscale(1); pointer-events: none; }
main { column-width: 22em; column-gap: 0.75em; padding: 0.75em 1em 1.5em; max-width: 1400px; margin: 0 auto; }
.groups { display: contents; }
section { background: var(--panel); border-radius: 10px; padding: 0.8em 1em; margin: 0 0 0.75em; break-inside: avoid; }
.control { display: grid; grid-template-columns: 6.5em 1fr 6em; align-items: center; gap: 0.1em 0.6em; margin: 0.35em 0; }
.control output { text-align: right; font-variant-numeric: tabular-nums; }
.control .note { grid-column: 1 / -1; }
.control .note:empty { display: none; }
.control input[type=checkbox] { justify-self: start; width: 1.5em; height: 1.5em; }
input[type=range] { width: 100%; height: 2.2em; accent-color: var(--accent); margin: 0; }
figure { margin: 0.6em 0 0; }
.picture { display: block; width: 100%; height: auto; border-radius: 6px; background: #fff; }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: 0.6em; margin: 0.4em 0; }
.row > label { min-width: 6.5em; }
select, input[type=text], button { font: inherit; color: var(--text); background: #263042; border: 1px solid #3a475c; border-radius: 6px; padding: 0.45em 0.7em; min-height: 2.6em; }
select, input[type=text] { flex: 1 1 8em; min-width: 0; }
button { cursor: pointer; }
button.danger { border-color: #7a3b3b; }
button[aria-pressed=true] { border-color: var(--accent); }
button:disabled, select:disabled, input:disabled { opacity: 0.6; cursor: default; }
button:focus-visible, select:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.check { display: inline-flex; align-items: center; gap: 0.3em; }
.check input { width: 1.3em; height: 1.3em; }
#position { margin-left: auto; font-variant-numeric: tabular-nums; }
.note { margin: 0; min-height: 0; font-size: 0.9em; color: var(--dim); }
.note.ok { color: var(--ok); }
.note.error { color: var(--error); }
.confirm { background: #2b2230; border-radius: 6px; padding: 0.4em 0.6em; }
.meters { display: grid; grid-template-columns: 4.5em 1fr 4.5em; gap: 0.35em 0.6em; align-items: center; }
.meters output { text-align: right; font-variant-numeric: tabular-nums; }
meter { width: 100%; height: 1.1em; }
.stats { margin: 0.6em 0 0; color: var(--dim); }
.stats output { color: var(--text); font-variant-numeric: tabular-nums; }
.stats output.warn { color: var(--error); font-weight: bold; }
#message { max-width: 1400px; margin: 0 auto; padding: 0 1em; color: var(--error); }
#message:empty { display: none; }
#racks { list-style: none; margin: 0; padding: 0; }
#racks li { padding: 0.35em 0; }
#racks a { color: var(--accent); font-weight: 600; }
.rack-host { color: var(--dim); font-size: 0.9em; }
@media (max-width: 420px) {
  .control { grid-template-columns: 1fr 6em; }
  .control input[type=range] { grid-column: 1 / -1; grid-row: 2; }
  .row > label { min-width: 0; }
}
"""#
