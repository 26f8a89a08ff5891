"""The viewer page's template: its HTML skeleton, styles and script.

:func:`mazeroute.view.page` fills the ``{{title}}``, ``{{css}}``, ``{{data}}`` and ``{{js}}``
slots of :data:`HTML` in one pass. The script reads the page's data (the
``mazeroute-view/1`` JSON that :mod:`mazeroute.view` describes) and draws it on a canvas;
it fetches nothing, as the page's Content-Security-Policy forbids every request. Its
shared part (decoding, the canvas, panning and zooming, the layer selector) is here;
each kind of page's own part is in :mod:`mazeroute.view_pages`.
"""

from .view_pages import ROUTES, WAVEFRONT

HTML = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}}</title>
<style>{{css}}</style>
</head><body>
<header>
<span id="title"></span><span id="summary"></span>
<span class="tools"><button id="zout" title="zoom out (-)">&minus;</button><button id="zin"
 title="zoom in (+)">+</button><button id="fit" title="fit to window (f)">fit</button>
<span id="zoom"></span></span>
<span id="hover"></span>
</header>
<main>
<div id="stage"><canvas id="cv"></canvas><div id="msg">loading&hellip;</div></div>
<aside id="side">
<div id="layerrow" class="row" hidden><label for="layer">layer</label><select
 id="layer"></select></div>
<section id="netpanel" hidden>
<div class="row"><input id="search" type="search" placeholder="search nets (/)"
 autocomplete="off"><select id="filter"><option value="all">all</option>
<option value="unrouted">unrouted</option><option value="routed">routed</option></select>
<select id="sort"><option value="status">unrouted first</option><option value="name">name
</option><option value="length">length</option><option value="order">order</option>
</select></div>
<div id="count"></div>
<div id="list"><div id="spacer"></div></div>
<div id="detail"></div>
<div id="congrow" hidden><label><input id="cong" type="checkbox"> congestion (history
 cost)</label><canvas id="congbar" width="256" height="12"></canvas><div class="ticks">
<span>0</span><span id="congmax"></span></div></div>
<label id="marksrow" hidden><input id="marks" type="checkbox" checked> ring the pins of
 unrouted nets</label>
<div id="keys"></div>
</section>
<section id="wavepanel" hidden>
<div class="row"><button id="play">&#9654;</button><input id="slider" type="range"
 min="0" max="0" value="0"></div>
<div id="levelinfo"></div>
<canvas id="bar" width="256" height="14"></canvas>
<div class="ticks"><span>0</span><span id="barmax"></span></div>
<label><input id="showpath" type="checkbox" checked> show the path</label>
<div id="wavekeys"></div>
</section>
<div class="help">drag: pan &middot; wheel, +/-: zoom &middot; f: fit &middot; arrows: pan
 &middot; /: search &middot; Esc: clear<span id="layerkey" hidden> &middot; l: next
 layer</span></div>
</aside>
</main>
<script type="application/json" id="mz-data">{{data}}</script>
<script>{{js}}</script>
</body></html>
"""

CSS = """
html, body { margin: 0; height: 100%; font: 13px/1.35 system-ui, sans-serif; color: #111; }
body { display: flex; flex-direction: column; }
header { display: flex; gap: 14px; align-items: center; padding: 5px 10px;
  border-bottom: 1px solid #ccc; background: #fafafa; white-space: nowrap; overflow: hidden; }
#title { font-weight: 600; }
#hover { margin-left: auto; font-family: ui-monospace, monospace; }
.tools button { min-width: 28px; }
main { flex: 1; display: flex; min-height: 0; }
#stage { flex: 1; position: relative; min-width: 0; background: #e8e8e8; }
#cv { position: absolute; left: 0; top: 0; width: 100%; height: 100%; cursor: crosshair;
  touch-action: none; }
#msg { position: absolute; left: 12px; top: 10px; }
#side { width: 360px; display: flex; flex-direction: column; border-left: 1px solid #ccc;
  padding: 6px; gap: 6px; box-sizing: border-box; min-height: 0; }
#side section { display: flex; flex-direction: column; gap: 6px; min-height: 0; flex: 1; }
#side section[hidden] { display: none; }
.row { display: flex; gap: 4px; }
#search { flex: 1; min-width: 0; }
#list { flex: 1; overflow-y: auto; position: relative; border: 1px solid #ddd;
  min-height: 120px; }
#spacer { width: 1px; }
.net { position: absolute; left: 0; right: 0; height: 20px; display: flex; gap: 6px;
  align-items: center; padding: 0 4px; cursor: pointer; white-space: nowrap;
  overflow: hidden; box-sizing: border-box; }
.net:hover { background: #eef; }
.net.sel { background: #ffe7a8; }
.sw { width: 11px; height: 11px; flex: none; border: 1px solid #777; }
.nm { overflow: hidden; text-overflow: ellipsis; flex: none; max-width: 70%; }
.st { color: #555; font-size: 12px; flex: 1 1 0; min-width: 0; overflow: hidden;
  text-overflow: ellipsis; }
.net.un .st { color: #b00; font-weight: 600; }
#detail { border-top: 1px solid #ddd; padding-top: 4px; max-height: 32%; overflow: auto;
  word-break: break-word; }
#detail:empty { display: none; }
.ticks { display: flex; justify-content: space-between; width: 256px; font-size: 11px; }
#slider { flex: 1; }
#layerrow { align-items: center; }
#layer { flex: 1; min-width: 0; }
.key { display: flex; gap: 6px; align-items: center; }
.help { color: #666; font-size: 11px; }
"""

_CORE = r"""
"use strict";
(async function () {
const T0 = performance.now();
const D = JSON.parse(document.getElementById("mz-data").textContent);
const timings = {parsed: performance.now() - T0};       // ms since the script started
const tick = (label) => { timings[label] = performance.now() - T0; };
const W = D.width, H = D.height, N = W * H;
// a stack's cells are numbered (z * H + y) * W + x; one layer is shown at a time, or all
const LAYERS = D.layers || null, L = LAYERS ? LAYERS.length : 1, NT = N * L;
let layer = LAYERS ? -1 : 0;              // the layer shown; -1: all, blended
let focus = 0;                            // the layer drawn on top of the blend
const $ = (id) => document.getElementById(id);
const msg = $("msg");
const T = {u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, i32: Int32Array,
  f32: Float32Array};

function b64(s) {
  const bin = atob(s), n = bin.length, u = new Uint8Array(n);
  for (let i = 0; i < n; i++) u[i] = bin.charCodeAt(i);
  return u;
}
async function blob(b) {
  if (!b) return null;
  const z = b64(b.z);
  const s = new Blob([z]).stream().pipeThrough(new DecompressionStream("deflate"));
  const buf = await new Response(s).arrayBuffer();
  return new T[b.dtype](buf, 0, b.n);
}
function rgb(hex) {
  return [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
}
function pack(c) { return (255 << 24 | c[2] << 16 | c[1] << 8 | c[0]) >>> 0; }
function lut(hex) {
  const out = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    out[i] = pack([0, 2, 4].map((k) => parseInt(hex.substr(6 * i + k, 2), 16)));
  }
  return out;
}
function css(c) { return "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")"; }
function decodeSteps(codes, jumps, out) {
  let c = 0, j = 0;
  for (let i = 0; i < codes.length; i++) {
    const k = codes[i];
    if (k === 0) c += 1; else if (k === 1) c -= 1; else if (k === 2) c += W;
    else if (k === 3) c -= W; else if (k === 5) c += N; else if (k === 6) c -= N;
    else c = jumps[j++];
    out[i] = c;
  }
  return out;
}

if (typeof DecompressionStream === "undefined") {
  msg.textContent = "This browser cannot inflate the embedded data " +
    "(no DecompressionStream): open the file in a current Chrome, Edge, Firefox or Safari.";
  return;
}
const C = {};
for (const k in D.colours) C[k] = rgb(D.colours[k]);
const P = {};
for (const k in C) P[k] = pack(C[k]);
document.title = D.title;
$("title").textContent = D.title;

// --- grid state ---------------------------------------------------------------------------
const bits = await blob(D.blocked);
const blocked = (i) => (bits[i >> 3] >> (i & 7)) & 1;
function eachBit(a, f, lo, hi) {
  // the set bits of a, cells numbered lo .. hi - 1 (default: one layer's), as f(c - lo)
  lo = lo || 0; hi = hi === undefined ? N : hi;
  for (let j = lo >> 3; j < a.length && 8 * j < hi; j++) {
    const b = a[j];
    if (!b) continue;
    for (let t = 0; t < 8; t++) {
      const c = 8 * j + t;
      if ((b >> t) & 1 && c >= lo && c < hi) f(c - lo);
    }
  }
}
const eachBlocked = (f, lo, hi) => eachBit(bits, f, lo, hi);
const zOf = (c) => Math.floor(c / N);
const onShown = (c) => layer < 0 || zOf(c) === layer;
const MARK = {horizontal: "H \u2194", vertical: "V \u2195", any: "any"};
function layerLabel(z) {
  const l = LAYERS[z];
  return z + ": " + l.name + " " + (MARK[l.direction] || l.direction);
}
const base = document.createElement("canvas");
base.width = W; base.height = H;
const bctx = base.getContext("2d");
const img = bctx.createImageData(W, H);
const px = new Uint32Array(img.data.buffer);
const prio = new Uint8Array(N);          // what survives when zoomed out: higher wins
const view = {s: 1, ox: 0, oy: 0};
let mips = [];                            // [{c: canvas, p: priorities}], level m: 2^m cells
let overlay = null;                       // congestion layer {c, mips}
let hover = -1, sel = -1;
const cv = $("cv"), ctx = cv.getContext("2d");

function mip(m, src) {
  // block-wise reduction that keeps the pixel of highest priority (pins, wires survive)
  src = src || {c: base, p: prio, list: mips, px: px};
  const list = src.list;
  if (m === 0) return src.c;
  if (list[m]) return list[m].c;
  let prev = m - 1 === 0 ? {c: src.c, p: src.p, px: src.px, w: W, h: H} : list[m - 1];
  if (!prev) { mip(m - 1, src); prev = list[m - 1]; }
  const w = Math.ceil(prev.w / 2), h = Math.ceil(prev.h / 2);
  const c = document.createElement("canvas");
  c.width = w; c.height = h;
  const x2 = c.getContext("2d"), im = x2.createImageData(w, h);
  const out = new Uint32Array(im.data.buffer), op = new Uint8Array(w * h);
  const ip = prev.px, pp = prev.p, pw = prev.w, ph = prev.h;
  let o = 0;
  for (let y = 0; y < h; y++) {
    const r0 = 2 * y * pw, r1 = 2 * y + 1 < ph ? r0 + pw : r0;
    for (let x = 0; x < w; x++) {
      const x0 = 2 * x, x1 = x0 + 1 < pw ? x0 + 1 : x0;
      let q = r0 + x0, b = pp[q], t = r0 + x1;
      if (pp[t] > b) { b = pp[t]; q = t; }
      t = r1 + x0;
      if (pp[t] > b) { b = pp[t]; q = t; }
      t = r1 + x1;
      if (pp[t] > b) { b = pp[t]; q = t; }
      out[o] = ip[q]; op[o++] = b;
    }
  }
  x2.putImageData(im, 0, 0);
  list[m] = {c: c, p: op, px: out, w: w, h: h};
  return c;
}

// --- drawing --------------------------------------------------------------------------------
function resize() {
  const r = cv.getBoundingClientRect(), dpr = window.devicePixelRatio || 1;
  cv.width = Math.max(1, Math.round(r.width * dpr));
  cv.height = Math.max(1, Math.round(r.height * dpr));
}
function fit() {
  const r = cv.getBoundingClientRect();
  const s = Math.min(r.width / W, r.height / H) * 0.98;
  view.s = s; view.ox = (r.width - W * s) / 2; view.oy = (r.height - H * s) / 2;
  draw();
}
function zoomAt(f, cx, cy) {
  const s = Math.min(256, Math.max(0.01, view.s * f));
  view.ox = cx - (cx - view.ox) * s / view.s;
  view.oy = cy - (cy - view.oy) * s / view.s;
  view.s = s;
  draw();
}
function drawLayer(ctx2, src, dpr) {
  const s = view.s * dpr;
  let m = 0;
  while (s * (1 << m) < 1 && (W >> m) > 1) m++;        // a texel covers >= 1 device pixel
  const c = mip(m, src), k = 1 << m;
  ctx2.drawImage(c, 0, 0, c.width, c.height, view.ox * dpr, view.oy * dpr,
    c.width * k * s, c.height * k * s);
}
let pending = false;
function draw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; paint(); });
}
let dirty = false;
function paint() {
  if (dirty) { bctx.putImageData(img, 0, 0); mips = []; dirty = false; }
  const dpr = window.devicePixelRatio || 1, s = view.s;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#e8e8e8";
  ctx.fillRect(0, 0, cv.width, cv.height);
  ctx.imageSmoothingEnabled = false;
  drawLayer(ctx, null, dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (overlay && overlay.on) {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    drawLayer(ctx, overlay.src, dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  }
  if (KIND.paint) KIND.paint(s);
  if (hover >= 0 && s >= 4) {
    ctx.strokeStyle = "rgba(0,0,0,0.6)"; ctx.lineWidth = 1;
    ctx.strokeRect(view.ox + (hover % W) * s + 0.5, view.oy + Math.floor(hover / W) * s + 0.5,
      s - 1, s - 1);
  }
  if (!timings.painted) tick("painted");
  $("zoom").textContent = (s >= 1 ? s.toFixed(2) : s.toPrecision(3)) + " px/cell";
  document.body.dataset.scale = String(s);
}
function cellAt(cx, cy) {
  const x = Math.floor((cx - view.ox) / view.s), y = Math.floor((cy - view.oy) / view.s);
  return (x >= 0 && y >= 0 && x < W && y < H) ? y * W + x : -1;
}
function inView(i, pad) {
  i %= N;
  const x = view.ox + (i % W + 0.5) * view.s, y = view.oy + (Math.floor(i / W) + 0.5) * view.s;
  return x > -pad && y > -pad && x < cv.clientWidth + pad && y < cv.clientHeight + pad;
}
function box(c, d) {
  // cell c's square on screen, on whole pixels (no seams between cells), >= d pixels wide
  c %= N;
  const s = view.s, x = view.ox + (c % W) * s, y = view.oy + Math.floor(c / W) * s;
  if (s < d) return [x + (s - d) / 2, y + (s - d) / 2, d, d];
  const x0 = Math.round(x), y0 = Math.round(y);
  return [x0, y0, Math.round(x + s) - x0, Math.round(y + s) - y0];
}
function rings(cells, r, colour) {
  // one path for all: thousands of unrouted pins stay one stroke
  ctx.beginPath();
  for (let i of cells) {
    if (!onShown(i) || !inView(i, r + 2)) continue;
    i %= N;
    const x = view.ox + (i % W + 0.5) * view.s, y = view.oy + (Math.floor(i / W) + 0.5) * view.s;
    ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI);
  }
  const w = r >= 5 ? 2 : 1;
  ctx.lineWidth = w + 2; ctx.strokeStyle = "#fff"; ctx.stroke();
  ctx.lineWidth = w; ctx.strokeStyle = colour; ctx.stroke();
}
function viaMarks(list) {
  // a square with a cross on each via (numbered by its lower cell) touching the shown layer
  const s = view.s, d = Math.max(5, Math.min(0.5 * s, 20)), h = d / 2;
  let any = false;
  ctx.beginPath();
  for (const v of list) {
    const z = zOf(v);
    if ((layer >= 0 && z !== layer && z + 1 !== layer) || !inView(v, d)) continue;
    const i = v % N, x = view.ox + (i % W + 0.5) * s, y = view.oy + (Math.floor(i / W) + 0.5) * s;
    ctx.rect(x - h, y - h, d, d);
    ctx.moveTo(x - h, y - h); ctx.lineTo(x + h, y + h);
    ctx.moveTo(x + h, y - h); ctx.lineTo(x - h, y + h);
    any = true;
  }
  if (!any) return;
  ctx.lineWidth = 3; ctx.strokeStyle = "#fff"; ctx.stroke();
  ctx.lineWidth = 1.5; ctx.strokeStyle = "#000"; ctx.stroke();
}
function layerWords(f, i) {
  // what f(cell number) says of grid cell i: on the shown layer, or on each in turn
  if (!LAYERS) return f(i);
  if (layer >= 0) return LAYERS[layer].name + " \u00b7 " + f(layer * N + i);
  return LAYERS.map((l, z) => l.name + ": " + f(z * N + i)).join(" \u00b7 ");
}
function setLayer(z) {
  // show layer z (-1: all blended); a layer picked stays on top of the blend
  z = Math.max(-1, Math.min(L - 1, z | 0));
  if (!LAYERS) return;
  layer = z;
  if (z >= 0) focus = z;
  const sel = $("layer");
  sel.value = String(z);
  if (KIND.blendLabel) sel.options[0].textContent = KIND.blendLabel();
  document.body.dataset.layer = z < 0 ? "all" : LAYERS[z].name;
  if (KIND.layer) KIND.layer();
  showHover();
  draw();
}
function layerSelector() {
  if (!LAYERS) return;
  const sel = $("layer");
  for (let z = -1; z < L; z++) {
    const o = document.createElement("option");
    o.value = String(z);
    o.textContent = z < 0 ? "all layers" : layerLabel(z);
    sel.append(o);
  }
  sel.onchange = () => { setLayer(+sel.value); sel.blur(); };
  $("layerrow").hidden = false;
  $("layerkey").hidden = false;
}

// --- input ---------------------------------------------------------------------------------
let drag = null;
cv.addEventListener("wheel", (e) => {
  e.preventDefault();
  const r = cv.getBoundingClientRect();
  zoomAt(Math.pow(1.2, -e.deltaY / 100), e.clientX - r.left, e.clientY - r.top);
}, {passive: false});
cv.addEventListener("pointerdown", (e) => {
  drag = {x: e.clientX, y: e.clientY, ox: view.ox, oy: view.oy, moved: false};
  cv.setPointerCapture(e.pointerId);
});
cv.addEventListener("pointermove", (e) => {
  const r = cv.getBoundingClientRect();
  if (drag) {
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (drag.moved) { view.ox = drag.ox + dx; view.oy = drag.oy + dy; draw(); }
  }
  const i = cellAt(e.clientX - r.left, e.clientY - r.top);
  if (i !== hover) { hover = i; showHover(); draw(); }
});
cv.addEventListener("pointerup", (e) => {
  const r = cv.getBoundingClientRect();
  if (drag && !drag.moved && KIND.click) KIND.click(cellAt(e.clientX - r.left,
    e.clientY - r.top));
  drag = null;
});
cv.addEventListener("pointerleave", () => { hover = -1; showHover(); draw(); });
window.addEventListener("resize", () => { resize(); draw(); });
document.addEventListener("keydown", (e) => {
  const t = e.target.tagName;
  if (e.key === "Escape" && KIND.clear) { KIND.clear(); return; }
  if (t === "INPUT" || t === "SELECT" || t === "TEXTAREA") return;
  const r = cv.getBoundingClientRect(), step = (e.shiftKey ? 0.5 : 0.1);
  if (e.key === "+" || e.key === "=") zoomAt(1.25, r.width / 2, r.height / 2);
  else if (e.key === "-" || e.key === "_") zoomAt(0.8, r.width / 2, r.height / 2);
  else if (e.key === "f" || e.key === "0") fit();
  else if (e.key === "ArrowLeft") { view.ox += r.width * step; draw(); }
  else if (e.key === "ArrowRight") { view.ox -= r.width * step; draw(); }
  else if (e.key === "ArrowUp") { view.oy += r.height * step; draw(); }
  else if (e.key === "ArrowDown") { view.oy -= r.height * step; draw(); }
  else if (e.key === "/" && $("search")) { e.preventDefault(); $("search").focus(); }
  else if (e.key === "l" && LAYERS) setLayer(layer + 1 < L ? layer + 1 : -1);
  else return;
  e.preventDefault();
});
$("zin").onclick = () => zoomAt(1.25, cv.clientWidth / 2, cv.clientHeight / 2);
$("zout").onclick = () => zoomAt(0.8, cv.clientWidth / 2, cv.clientHeight / 2);
$("fit").onclick = fit;
function showHover() {
  if (hover < 0) { $("hover").textContent = ""; return; }
  const x = hover % W, y = Math.floor(hover / W);
  $("hover").textContent = "x " + x + ", y " + y + " \u00b7 " + KIND.owner(hover);
}
function key(box, colour, text, ringed) {
  const d = document.createElement("div"), sw = document.createElement("span");
  d.className = "key"; sw.className = "sw"; sw.style.background = colour;
  if (ringed) { sw.style.borderRadius = "50%"; sw.style.border = "2px solid " + ringed; }
  const t = document.createElement("span"); t.textContent = text;
  d.append(sw, t); box.append(d);
}
function bar(canvas, table, mark) {
  const c2 = canvas.getContext("2d"), w = canvas.width, h = canvas.height;
  const im = c2.createImageData(w, h), p = new Uint32Array(im.data.buffer);
  for (let x = 0; x < w; x++) {
    const v = table[Math.round(x / (w - 1) * 255)];
    for (let y = 0; y < h; y++) p[y * w + x] = v;
  }
  c2.putImageData(im, 0, 0);
  if (mark !== undefined) {
    c2.fillStyle = css(C.front); c2.fillRect(Math.round(mark * (w - 3)), 0, 3, h);
  }
}

const KIND = {};                          // the page kind's hooks
"""

_BOOT = r"""
// for scripts and tests: the transform (CSS pixels: cell (x, y) starts at ox + x * s,
// oy + y * s of the canvas), and the load times
window.mazeview = {ready: false, view: () => ({s: view.s, ox: view.ox, oy: view.oy}),
  fit: fit, timings: timings, layer: setLayer, shown: () => layer};
try {
  layerSelector();
  if (D.kind === "wavefront") await wavefront(); else await routes();
  if (LAYERS) setLayer(layer);
} catch (err) {
  msg.textContent = "Could not read the embedded data: " + err;
  throw err;
}
msg.hidden = true;
resize();
fit();
requestAnimationFrame(() => {
  window.mazeview.ready = true;
  document.body.dataset.ready = "1";
});
})();
"""

#: The page's script: the shared part, then each kind of page's, then the start.
JS = _CORE + ROUTES + WAVEFRONT + _BOOT
