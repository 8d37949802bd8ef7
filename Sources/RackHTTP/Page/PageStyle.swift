/// The page's style: one column, large touch targets, readable on a phone.
let pageStyle = #"""
:root { color-scheme: dark; --bg: #11151c; --panel: #1c2330; --text: #e6edf3; --dim: #8b98a9; --accent: #6fc3ff; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.4 system-ui, sans-serif; }
header { display: flex; align-items: baseline; justify-content: space-between; gap: 1em; padding: 0.75em 1em 0; }
h1 { font-size: 1.4em; margin: 0; }
h2 { font-size: 1em; margin: 0 0 0.5em; color: var(--dim); text-transform: uppercase; letter-spacing: 0.08em; }
#connection { margin: 0; color: var(--dim); font-size: 0.9em; }
#connection.live { color: #7ddc8a; }
main { display: grid; gap: 0.75em; padding: 0.75em 1em 1.5em; max-width: 720px; margin: 0 auto; }
section { background: var(--panel); border-radius: 10px; padding: 0.8em 1em; }
.fader { display: grid; grid-template-columns: 6.5em 1fr 6.5em; align-items: center; gap: 0.6em; margin: 0.35em 0; }
.fader output { text-align: right; font-variant-numeric: tabular-nums; }
input[type=range] { width: 100%; height: 2.2em; accent-color: var(--accent); margin: 0; }
.row { display: flex; flex-wrap: wrap; align-items: center; gap: 0.6em; margin: 0.4em 0; }
.row > label { min-width: 6.5em; }
select, input[type=text], button { font: inherit; color: var(--text); background: #263042; border: 1px solid #3a475c; border-radius: 6px; padding: 0.45em 0.7em; min-height: 2.6em; }
select, input[type=text] { flex: 1 1 8em; min-width: 0; }
button { cursor: pointer; }
button:focus-visible, select:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.check { display: inline-flex; align-items: center; gap: 0.3em; }
.check input { width: 1.3em; height: 1.3em; }
#position { margin-left: auto; font-variant-numeric: tabular-nums; }
.meters { display: grid; grid-template-columns: 4.5em 1fr 4.5em; gap: 0.35em 0.6em; align-items: center; }
.meters output { text-align: right; font-variant-numeric: tabular-nums; }
meter { width: 100%; height: 1.1em; }
.stats { margin: 0.6em 0 0; color: var(--dim); }
.stats output { color: var(--text); font-variant-numeric: tabular-nums; }
#racks { list-style: none; margin: 0; padding: 0; }
#racks li { padding: 0.35em 0; }
#racks a { color: var(--accent); font-weight: 600; }
.rack-host { color: var(--dim); font-size: 0.9em; }
#message { min-height: 1.4em; margin: 0; color: #ffb86b; }
@media (max-width: 420px) {
  .fader { grid-template-columns: 1fr 6em; }
  .fader input[type=range] { grid-column: 1 / -1; grid-row: 2; }
  .row > label { min-width: 0; }
}
"""#
