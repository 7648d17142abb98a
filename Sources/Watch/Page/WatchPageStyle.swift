/// `watch --http`: How the page looks: one column for a phone held upright, colours that follow the system's light or dark scheme, and every state also in words.
/// Built into the binary: nothing is fetched from anywhere at build or run time.
enum WatchPageStyle {
    static let text = #"""
:root { color-scheme: light dark; --ok: #1a7f37; --bad: #c62828; --warn: #9a6700; --dim: #6e7781; --bar: #0969da; --line: #d0d7de; }
@media (prefers-color-scheme: dark) { :root { --ok: #3fb950; --bad: #f85149; --warn: #d29922; --dim: #8b949e; --bar: #58a6ff; --line: #30363d; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 0.5rem; font: 15px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; overflow-wrap: anywhere; }
h1 { font-size: 1.1rem; margin: 0; }
h2 { font-size: 1rem; margin: 0.8rem 0 0.3rem; }
p { margin: 0.15rem 0; }
.dim { color: var(--dim); }
.plain { list-style: none; padding: 0; margin: 0; }
.state { font-weight: 600; }
.ok { color: var(--ok); }
.bad { color: var(--bad); }
.warn { color: var(--warn); }
header { position: sticky; top: 0; background: Canvas; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line); z-index: 1; }
.gateway { border: 1px solid var(--line); border-radius: 6px; padding: 0.4rem 0.5rem; margin: 0.5rem 0; content-visibility: auto; contain-intrinsic-size: auto 40rem; }
.gateway h2 { margin: 0; }
.gateway .facts { font-size: 0.9rem; }
.peers { margin-top: 0.3rem; }
.peer { border-top: 1px solid var(--line); padding: 0.3rem 0; contain: layout style; }
.peer .top { display: flex; gap: 0.5rem; align-items: baseline; }
.peer .name { font-weight: 600; flex: 1 1 auto; min-width: 0; }
.peer .distance { font-variant-numeric: tabular-nums; font-weight: 600; white-space: nowrap; flex: none; }
.peer .link { font-size: 0.85rem; white-space: nowrap; flex: none; }
.peer.lost .name, .peer.lost .distance { color: var(--dim); }
.bar { position: relative; height: 0.9rem; background: color-mix(in srgb, var(--line) 50%, transparent); border-radius: 3px; margin: 0.2rem 0; overflow: hidden; }
.bar .fill { position: absolute; left: 0; top: 0; bottom: 0; width: 100%; transform-origin: left; transform: scaleX(0); background: var(--bar); }
.peer.lost .bar .fill { background: var(--dim); }
.bar .mark { position: absolute; top: 0; bottom: 0; width: 2px; background: CanvasText; opacity: 0.7; }
.peer .details { font-size: 0.85rem; }
.scale { font-size: 0.8rem; display: flex; justify-content: space-between; }
.ranking { font-size: 0.9rem; }
#events li { font-size: 0.9rem; padding: 0.15rem 0; border-top: 1px solid var(--line); }
#events .when { color: var(--dim); font-variant-numeric: tabular-nums; margin-right: 0.4rem; }
#map { width: 100%; height: auto; max-height: 60vh; border: 1px solid var(--line); border-radius: 6px; }
#map .zone { fill: color-mix(in srgb, var(--warn) 12%, transparent); stroke: var(--warn); stroke-dasharray: 0.15 0.1; }
#map .zone-name { fill: var(--warn); }
#map .gateway-mark { fill: CanvasText; }
#map .accuracy { fill: color-mix(in srgb, var(--bar) 15%, transparent); stroke: var(--bar); }
#map .tag-dot { fill: var(--bar); }
#map text { fill: CanvasText; paint-order: stroke; stroke: Canvas; }
#tags li { font-size: 0.9rem; }
"""#
}
