"""The viewer page's template: its HTML skeleton, styles and script.

:func:`mazeroute.view.page` fills the ``{{title}}``, ``{{css}}``, ``{{data}}`` and ``{{js}}``
slots of :data:`HTML` in one pass. The script reads the page's data (the
``mazeroute-view/1`` JSON that :mod:`mazeroute.view` describes) and draws it on a canvas;
it fetches nothing, as the page's Content-Security-Policy forbids every request.
"""

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
 &middot; /: search &middot; Esc: clear</div>
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
.key { display: flex; gap: 6px; align-items: center; }
.help { color: #666; font-size: 11px; }
"""

JS = r"""
"use strict";
(async function () {
const T0 = performance.now();
const D = JSON.parse(document.getElementById("mz-data").textContent);
const timings = {parsed: performance.now() - T0};       // ms since the script started
const tick = (label) => { timings[label] = performance.now() - T0; };
const W = D.width, H = D.height, N = W * H;
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
    else if (k === 3) c -= W; else c = jumps[j++];
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
function eachBlocked(f) {
  for (let j = 0; j < bits.length; j++) {
    const b = bits[j];
    if (!b) continue;
    for (let t = 0; t < 8; t++) if ((b >> t) & 1 && 8 * j + t < N) f(8 * j + t);
  }
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
  const x = view.ox + (i % W + 0.5) * view.s, y = view.oy + (Math.floor(i / W) + 0.5) * view.s;
  return x > -pad && y > -pad && x < cv.clientWidth + pad && y < cv.clientHeight + pad;
}
function box(c, d) {
  // cell c's square on screen, on whole pixels (no seams between cells), >= d pixels wide
  const s = view.s, x = view.ox + (c % W) * s, y = view.oy + Math.floor(c / W) * s;
  if (s < d) return [x + (s - d) / 2, y + (s - d) / 2, d, d];
  const x0 = Math.round(x), y0 = Math.round(y);
  return [x0, y0, Math.round(x + s) - x0, Math.round(y + s) - y0];
}
function rings(cells, r, colour) {
  // one path for all: thousands of unrouted pins stay one stroke
  ctx.beginPath();
  for (const i of cells) {
    if (!inView(i, r + 2)) continue;
    const x = view.ox + (i % W + 0.5) * view.s, y = view.oy + (Math.floor(i / W) + 0.5) * view.s;
    ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI);
  }
  const w = r >= 5 ? 2 : 1;
  ctx.lineWidth = w + 2; ctx.strokeStyle = "#fff"; ctx.stroke();
  ctx.lineWidth = w; ctx.strokeStyle = colour; ctx.stroke();
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

// --- a routed layout ------------------------------------------------------------------------
const KIND = {};
async function routes() {
  $("netpanel").hidden = false;
  const nd = D.nets, n = nd.names.length, names = nd.names;
  const colour = await blob(nd.colour), pinsN = await blob(nd.pins_n), pins = await blob(nd.pins);
  const hasResult = !!nd.routed;
  const routed = hasResult ? await blob(nd.routed) : null;
  const order = hasResult ? await blob(nd.order) : null;
  const length = hasResult ? await blob(nd.length) : null;
  const bendsA = hasResult ? await blob(nd.bends) : null;
  const cellsN = hasResult ? await blob(nd.cells_n) : new Uint32Array(n);
  const cells = new Uint32Array(cellsN.reduce((a, b) => a + b, 0));
  if (hasResult) decodeSteps(await blob(nd.codes), await blob(nd.jumps), cells);
  tick("decoded");
  const reasons = nd.reasons || {};
  const pinStart = new Uint32Array(n + 1), cellStart = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    pinStart[i + 1] = pinStart[i] + pinsN[i]; cellStart[i + 1] = cellStart[i] + cellsN[i];
  }
  const pinNet = new Int32Array(pins.length);
  for (let i = 0; i < n; i++) pinNet.fill(i, pinStart[i], pinStart[i + 1]);
  const col = (i) => [colour[3 * i], colour[3 * i + 1], colour[3 * i + 2]];
  const dark = (c) => c.map((v) => Math.floor(v * 55 / 100));
  const isUn = (i) => hasResult && !routed[i];
  const owner = new Int32Array(N);                 // 0 none, i + 1: wire of net i
  const pinOf = new Map();
  px.fill(P.free);
  eachBlocked((i) => { px[i] = P.blocked; prio[i] = 1; });
  for (let i = 0; i < n; i++) {
    const c = pack(col(i));
    for (let k = cellStart[i]; k < cellStart[i + 1]; k++) {
      px[cells[k]] = c; prio[cells[k]] = 2; owner[cells[k]] = i + 1;
    }
  }
  for (let i = 0; i < n; i++) {
    const c = pack(dark(col(i)));
    for (let k = pinStart[i]; k < pinStart[i + 1]; k++) {
      px[pins[k]] = c; prio[pins[k]] = isUn(i) ? 4 : 3; pinOf.set(pins[k], i);
    }
  }
  bctx.putImageData(img, 0, 0);
  tick("drawn");
  const unrouted = [];
  for (let i = 0; i < n; i++) if (isUn(i)) unrouted.push(i);
  const unroutedPins = [];
  for (const i of unrouted) {
    for (let k = pinStart[i]; k < pinStart[i + 1]; k++) unroutedPins.push(pins[k]);
  }
  $("summary").textContent = W + " \u00d7 " + H + " \u00b7 " + (hasResult ?
    D.routed + "/" + n + " nets routed \u00b7 wirelength " + D.wirelength + " \u00b7 " +
    D.mode + " \u00b7 " + D.engine : n + " nets, not routed");
  const keys = $("keys");
  key(keys, css(C.blocked), "blockage");
  key(keys, "#999", "pin (black square when zoomed in)");
  if (hasResult) key(keys, "transparent", "pin of an unrouted net", "#d00000");
  $("marksrow").hidden = !unrouted.length;
  $("marks").onchange = draw;

  if (D.congestion) {
    const cg = await blob(D.congestion), mx = D.congestion_max || 1, heat = lut(D.heat);
    const c = document.createElement("canvas");
    c.width = W; c.height = H;
    const cx2 = c.getContext("2d"), im = cx2.createImageData(W, H);
    const p = new Uint32Array(im.data.buffer), pr = new Uint8Array(N);
    for (let i = 0; i < N; i++) {
      if (cg[i] > 0) {
        const t = Math.min(1, cg[i] / mx), v = heat[Math.round(t * 255)];
        p[i] = (v & 0x00ffffff | (Math.round(120 + 120 * t) << 24)) >>> 0;
        pr[i] = 1 + Math.round(t * 254);
      }
    }
    cx2.putImageData(im, 0, 0);
    overlay = {on: false, data: cg, src: {c: c, p: pr, px: p, list: []}};
    $("congrow").hidden = false;
    $("congmax").textContent = String(+mx.toPrecision(4));
    bar($("congbar"), heat);
    $("cong").onchange = (e) => { overlay.on = e.target.checked; draw(); };
  }

  KIND.owner = (i) => {
    let t;
    if (pinOf.has(i)) {
      const k = pinOf.get(i);
      t = "pin of net " + JSON.stringify(names[k]) + (isUn(k) ? " (unrouted)" : "");
    } else if (owner[i]) t = "wire of net " + JSON.stringify(names[owner[i] - 1]);
    else if (blocked(i)) t = "blockage";
    else t = "free";
    if (overlay && overlay.data[i] > 0) t += " \u00b7 history cost " + +overlay.data[i]
      .toPrecision(4);
    return t;
  };
  KIND.click = (i) => {
    if (i < 0) return;
    const k = pinOf.has(i) ? pinOf.get(i) : owner[i] - 1;
    select(k, false);
  };
  KIND.clear = () => select(-1, false);
  function pinMarks(from, to, s) {
    // zoomed in, a pin is its net's colour with a centred mark, as in the PNG
    const m = Math.max(1, Math.floor(s / 2)), o = (s - m) / 2;
    for (let k = from; k < to; k++) {
      const c = pins[k], i = pinNet[k];
      if (!inView(c, s)) continue;
      const b = box(c, 0);
      ctx.fillStyle = css(col(i)); ctx.fillRect(b[0], b[1], b[2], b[3]);
      const x = view.ox + (c % W) * s, y = view.oy + Math.floor(c / W) * s;
      ctx.fillStyle = css(isUn(i) ? C.unrouted_pin : C.pin);
      ctx.fillRect(Math.round(x + o), Math.round(y + o), m, m);
    }
  }
  KIND.paint = (s) => {
    const dpr = window.devicePixelRatio || 1;
    if (s >= 4) pinMarks(0, pins.length, s);
    if (sel >= 0) {
      ctx.fillStyle = "rgba(247,247,242,0.8)";
      ctx.fillRect(view.ox, view.oy, W * s, H * s);
      ctx.fillStyle = css(col(sel));
      const d = 2 / dpr;
      for (let k = cellStart[sel]; k < cellStart[sel + 1]; k++) {
        const b = box(cells[k], d); ctx.fillRect(b[0], b[1], b[2], b[3]);
      }
      for (let k = pinStart[sel]; k < pinStart[sel + 1]; k++) {
        const b = box(pins[k], d); ctx.fillRect(b[0], b[1], b[2], b[3]);
      }
      if (s >= 4) pinMarks(pinStart[sel], pinStart[sel + 1], s);
    }
    // few unrouted nets get big rings; thousands get small ones, so the grid stays visible
    const r = Math.max(s * 0.7, unrouted.length > 200 ? 2.5 : 6);
    if ($("marks").checked) rings(unroutedPins, r, "#d00000");
    if (sel >= 0) rings(pins.subarray(pinStart[sel], pinStart[sel + 1]), Math.max(r, 6) + 3,
      "#000");
  };

  // the net list
  const list = $("list"), spacer = $("spacer"), ROW = 20;
  let shown = [];
  const pool = [];
  function status(i) {
    if (!hasResult) return pinsN[i] + " pins";
    if (!routed[i]) return "unrouted" + (reasons[i] ? ": " + reasons[i] : "");
    return "len " + length[i] + " \u00b7 " + bendsA[i] + " bends \u00b7 #" + order[i];
  }
  function refilter() {
    const q = $("search").value.trim().toLowerCase(), f = $("filter").value;
    const out = [];
    for (let i = 0; i < n; i++) {
      if (f === "unrouted" && !isUn(i)) continue;
      if (f === "routed" && (!hasResult || !routed[i])) continue;
      if (q && names[i].toLowerCase().indexOf(q) < 0) continue;
      out.push(i);
    }
    const how = $("sort").value;
    if (how === "status") out.sort((a, b) => (isUn(b) - isUn(a)) || a - b);
    else if (how === "name") out.sort((a, b) => names[a] < names[b] ? -1 : names[a] >
      names[b] ? 1 : a - b);
    else if (how === "length" && hasResult) out.sort((a, b) => length[b] - length[a] || a - b);
    else if (how === "order" && hasResult) {
      out.sort((a, b) => ((order[a] < 0) - (order[b] < 0)) || order[a] - order[b] || a - b);
    }
    shown = out;
    spacer.style.height = shown.length * ROW + "px";
    $("count").textContent = (hasResult ? unrouted.length + " unrouted \u00b7 " +
      (n - unrouted.length) + " routed \u00b7 " : "") + "showing " + shown.length + " of " + n;
    list.scrollTop = 0;
    renderList();
  }
  function renderList() {
    const first = Math.floor(list.scrollTop / ROW);
    const count = Math.min(shown.length - first, Math.ceil(list.clientHeight / ROW) + 2);
    for (let r = 0; r < Math.max(count, pool.length); r++) {
      if (r >= count) { if (pool[r]) pool[r].hidden = true; continue; }
      if (!pool[r]) {
        const d = document.createElement("div"), sw = document.createElement("span");
        const nm = document.createElement("span"), st = document.createElement("span");
        sw.className = "sw"; nm.className = "nm"; st.className = "st";
        d.append(sw, nm, st);
        d.onclick = () => select(+d.dataset.net, true);
        list.append(d); pool[r] = d;
      }
      const d = pool[r], i = shown[first + r];
      d.hidden = false;
      d.className = "net" + (isUn(i) ? " un" : "") + (i === sel ? " sel" : "");
      d.dataset.net = String(i);
      d.dataset.name = names[i];
      d.style.top = (first + r) * ROW + "px";
      d.children[0].style.background = css(col(i));
      d.children[1].textContent = names[i];
      d.children[2].textContent = status(i);
      d.title = names[i] + ": " + status(i);
    }
  }
  function detail() {
    const box = $("detail");
    box.textContent = "";
    if (sel < 0) return;
    const i = sel, add = (label, text) => {
      const d = document.createElement("div"), b = document.createElement("b");
      b.textContent = label + ": "; d.append(b, document.createTextNode(text)); box.append(d);
    };
    add("net", names[i]);
    if (hasResult) {
      add("status", routed[i] ? "routed" : "unrouted");
      if (!routed[i]) add("reason", reasons[i] || "not given by the result");
      else {
        add("length", String(length[i])); add("bends", String(bendsA[i]));
        add("order", String(order[i]));
      }
    }
    const ps = [];
    for (let k = pinStart[i]; k < Math.min(pinStart[i + 1], pinStart[i] + 12); k++) {
      ps.push("[" + pins[k] % W + ", " + Math.floor(pins[k] / W) + "]");
    }
    add("pins (" + pinsN[i] + ")", ps.join(" ") + (pinsN[i] > 12 ? " \u2026" : ""));
    const b = document.createElement("button");
    b.textContent = "zoom to net"; b.onclick = () => zoomTo(i);
    box.append(b);
  }
  function zoomTo(i) {
    let x0 = W, y0 = H, x1 = -1, y1 = -1;
    const grow = (c) => {
      const x = c % W, y = Math.floor(c / W);
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    };
    for (let k = pinStart[i]; k < pinStart[i + 1]; k++) grow(pins[k]);
    for (let k = cellStart[i]; k < cellStart[i + 1]; k++) grow(cells[k]);
    const r = cv.getBoundingClientRect(), bw = x1 - x0 + 1 + 8, bh = y1 - y0 + 1 + 8;
    const s = Math.max(view.s, Math.min(32, r.width / bw, r.height / bh));
    view.s = s;
    view.ox = r.width / 2 - (x0 + x1 + 1) / 2 * s;
    view.oy = r.height / 2 - (y0 + y1 + 1) / 2 * s;
    draw();
  }
  function select(i, zoom) {
    sel = i >= 0 && i < n ? i : -1;
    document.body.dataset.selected = sel >= 0 ? names[sel] : "";
    detail(); renderList();
    if (sel >= 0 && zoom) zoomTo(sel); else draw();
  }
  list.addEventListener("scroll", renderList);
  $("search").addEventListener("input", refilter);
  $("search").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && shown.length) select(shown[0], true);
  });
  $("filter").onchange = refilter;
  $("sort").onchange = refilter;
  window.addEventListener("resize", renderList);
  refilter();
  window.mazeview.select = (name) => select(names.indexOf(name), true);
}

// --- a wavefront --------------------------------------------------------------------------
async function wavefront() {
  $("wavepanel").hidden = false;
  const top = D.top, vir = lut(D.viridis);
  const lev = await blob(D.levels);                 // level + 1, 0 not reached
  const ob = await blob(D.others);
  const other = (i) => (ob[i >> 3] >> (i & 7)) & 1;
  const pc = await blob(D.path_codes), path = decodeSteps(pc, await blob(D.path_jumps),
    new Uint32Array(pc.length));
  // cells by level, so that moving the slider repaints only the levels in between
  const count = new Uint32Array(top + 2);
  for (let i = 0; i < N; i++) if (lev[i]) count[lev[i]]++;
  const start = new Uint32Array(top + 2);
  for (let l = 1; l <= top; l++) start[l + 1] = start[l] + count[l];
  const byLevel = new Uint32Array(start[top + 1] + count[top + 1]);
  const fill = start.slice();
  for (let i = 0; i < N; i++) if (lev[i]) byLevel[fill[lev[i]]++] = i;
  const shade = (l) => vir[Math.round(l / Math.max(top, 1) * 255)];
  px.fill(P.wave_free);
  for (let j = 0; j < ob.length; j++) {
    const b = ob[j];
    if (!b) continue;
    for (let t = 0; t < 8; t++) {
      if ((b >> t) & 1 && 8 * j + t < N) { px[8 * j + t] = P.other; prio[8 * j + t] = 1; }
    }
  }
  eachBlocked((i) => { px[i] = P.blocked; prio[i] = 1; });
  let k = -1;
  function paintLevel(l, how) {                   // how: 0 not yet, 1 reached, 2 frontier
    for (let q = start[l + 1]; q < start[l + 1] + count[l + 1]; q++) {
      const i = byLevel[q];
      px[i] = how === 2 ? P.front : how === 1 ? shade(l) : P.wave_free;
      prio[i] = how === 2 ? 3 : how;
    }
  }
  function setLevel(l) {
    l = Math.max(0, Math.min(top, l | 0));
    if (k < 0) { for (let m = 0; m < l; m++) paintLevel(m, 1); }
    else if (l > k) { for (let m = k; m < l; m++) paintLevel(m, 1); }
    else if (l < k) { for (let m = l + 1; m <= k; m++) paintLevel(m, 0); }
    paintLevel(l, 2);
    k = l;
    dirty = true;                               // the picture is uploaded once a frame
    $("slider").value = String(l);
    $("levelinfo").textContent = "level " + l + " of " + top + " \u00b7 " + count[l + 1] +
      " cells at this level";
    document.body.dataset.level = String(l);
    bar($("bar"), vir, l / Math.max(top, 1));
    draw();
  }
  $("summary").textContent = W + " \u00d7 " + H + " \u00b7 " + (top + 1) + " levels \u00b7 " +
    (start[top + 1] + count[top + 1]) + " cells reached";
  $("slider").max = String(top);
  $("barmax").textContent = String(top);
  $("slider").addEventListener("input", (e) => setLevel(+e.target.value));
  $("showpath").onchange = draw;
  let timer = null;
  $("play").onclick = () => {
    if (timer) { clearInterval(timer); timer = null; $("play").innerHTML = "&#9654;"; return; }
    if (k >= top) setLevel(0);
    $("play").innerHTML = "&#10074;&#10074;";
    const step = Math.max(1, Math.round(top / 150));
    timer = setInterval(() => {
      if (k >= top) { clearInterval(timer); timer = null; $("play").innerHTML = "&#9654;"; }
      else setLevel(k + step);
    }, 60);
  };
  const keys = $("wavekeys");
  key(keys, css(C.front), "cells of the slider's level");
  key(keys, css(C.blocked), "blockage");
  key(keys, css(C.other), "other nets");
  key(keys, css(C.wave_free), "not reached (yet)");
  if (path.length) key(keys, css(C.path), "path");
  key(keys, "#fff", "root", "#000");
  if (D.target !== null) key(keys, css(C.target), "target", "#000");

  const isRoot = new Set(D.roots);
  KIND.owner = (i) => {
    let t = blocked(i) ? "blockage" : other(i) ? "other net" :
      lev[i] ? "level " + (lev[i] - 1) : "not reached";
    if (isRoot.has(i)) t += " \u00b7 root";
    if (i === D.target) t += " \u00b7 target";
    return t;
  };
  KIND.paint = (s) => {
    const cx = (c) => view.ox + (c % W + 0.5) * s, cy = (c) => view.oy +
      (Math.floor(c / W) + 0.5) * s;
    if ($("showpath").checked && path.length) {
      ctx.strokeStyle = css(C.path); ctx.lineWidth = Math.max(2, s * 0.2);
      ctx.lineCap = "round"; ctx.lineJoin = "round";
      const seen = new Set();
      ctx.beginPath();
      for (let q = 0; q < path.length; q++) {
        const c = path[q], prev = q ? path[q - 1] : -1;
        const near = (a, b) => a >= 0 && (Math.abs(a - b) === W ||
          (Math.abs(a - b) === 1 && Math.floor(a / W) === Math.floor(b / W)));
        if (near(prev, c)) ctx.lineTo(cx(c), cy(c));
        else {
          const j = [c - W, c - 1, c + 1, c + W].find((a) => seen.has(a) && near(a, c));
          if (j !== undefined) { ctx.moveTo(cx(j), cy(j)); ctx.lineTo(cx(c), cy(c)); }
          else { ctx.moveTo(cx(c), cy(c)); ctx.lineTo(cx(c), cy(c)); }
        }
        seen.add(c);
      }
      ctx.stroke();
    }
    const r = Math.max(5, Math.min(0.35 * s, 12));
    for (const c of D.roots) {
      ctx.beginPath(); ctx.arc(cx(c), cy(c), r, 0, 2 * Math.PI);
      ctx.fillStyle = "#fff"; ctx.fill(); ctx.lineWidth = 1.5; ctx.strokeStyle = "#000";
      ctx.stroke();
    }
    if (D.target !== null) {
      const c = D.target;
      ctx.beginPath(); ctx.moveTo(cx(c) - r, cy(c) - r); ctx.lineTo(cx(c) + r, cy(c) + r);
      ctx.moveTo(cx(c) + r, cy(c) - r); ctx.lineTo(cx(c) - r, cy(c) + r);
      ctx.lineWidth = 5; ctx.strokeStyle = "#000"; ctx.stroke();
      ctx.lineWidth = 3; ctx.strokeStyle = css(C.target); ctx.stroke();
    }
  };
  setLevel(top);
  window.mazeview.level = setLevel;
}

// for scripts and tests: the transform (CSS pixels: cell (x, y) starts at ox + x * s,
// oy + y * s of the canvas), and the load times
window.mazeview = {ready: false, view: () => ({s: view.s, ox: view.ox, oy: view.oy}),
  fit: fit, timings: timings};
try {
  if (D.kind === "wavefront") await wavefront(); else await routes();
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
