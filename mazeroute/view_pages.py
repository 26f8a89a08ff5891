"""The viewer page's two scripts: a routed layout's and a wavefront's.

:data:`mazeroute.view_template.JS` joins them between the page's shared script (which
they call: ``blob``, ``draw``, ``px``, the layer helpers ``onShown``, ``layerWords``,
``viaMarks``) and its start, which runs one of them by the data's ``kind``. Each
draws the shown layer of a stack (or all of them blended) into the shared picture and
redraws it when the layer selector changes (``KIND.layer``).
"""

#: A routed (or bare) layout: the net list, the selection, congestion, pins and vias.
ROUTES = r"""
// --- a routed layout ------------------------------------------------------------------------
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
  const viasN = nd.vias_n ? await blob(nd.vias_n) : new Uint32Array(n);
  const vias = nd.vias ? await blob(nd.vias) : new Uint32Array(0);
  tick("decoded");
  const reasons = nd.reasons || {};
  const pinStart = new Uint32Array(n + 1), cellStart = new Uint32Array(n + 1);
  const viaStart = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    pinStart[i + 1] = pinStart[i] + pinsN[i]; cellStart[i + 1] = cellStart[i] + cellsN[i];
    viaStart[i + 1] = viaStart[i] + viasN[i];
  }
  const viaAt = new Set();                          // both cells of every via
  for (const v of vias) { viaAt.add(v); viaAt.add(v + N); }
  const pinNet = new Int32Array(pins.length);
  for (let i = 0; i < n; i++) pinNet.fill(i, pinStart[i], pinStart[i + 1]);
  const col = (i) => [colour[3 * i], colour[3 * i + 1], colour[3 * i + 2]];
  const dark = (c) => c.map((v) => Math.floor(v * 55 / 100));
  const isUn = (i) => hasResult && !routed[i];
  const owner = new Int32Array(NT);                // 0 none, i + 1: wire of net i
  const pinOf = new Map();
  for (let i = 0; i < n; i++) {
    for (let k = cellStart[i]; k < cellStart[i + 1]; k++) owner[cells[k]] = i + 1;
  }
  for (let i = 0; i < n; i++) {
    for (let k = pinStart[i]; k < pinStart[i + 1]; k++) pinOf.set(pins[k], i);
  }
  function paintNets(lo, mix) {
    // each net's cells on the layer from cell lo (mix: blended into the picture's
    // channels rather than drawn), then the pins on top (lo < 0: every layer's)
    if (lo >= 0) {
      for (let i = 0; i < n; i++) {
        const c = col(i), p = pack(c);
        for (let k = cellStart[i]; k < cellStart[i + 1]; k++) {
          const q = cells[k] - lo;
          if (q < 0 || q >= N) continue;
          if (mix) mix(q, c); else px[q] = p;
          prio[q] = 2;
        }
      }
    }
    if (mix) return;
    for (let i = 0; i < n; i++) {
      const c = pack(dark(col(i)));
      for (let k = pinStart[i]; k < pinStart[i + 1]; k++) {
        const q = lo < 0 ? pins[k] % N : pins[k] - lo;
        if (q >= 0 && q < N) { px[q] = c; prio[q] = isUn(i) ? 4 : 3; }
      }
    }
  }
  function blend() {
    // as layout.png --overlay: blockages a grey as dark as the share of layers they
    // block, every layer's wires at half opacity bottom first, the focus layer's on top
    const share = new Uint8Array(N), f = C.free, b = C.blocked, A = 0.5;
    eachBlocked((c) => { share[c % N]++; }, 0, NT);
    const ch = [0, 1, 2].map((k) => {
      const a = new Uint8ClampedArray(N);
      for (let i = 0; i < N; i++) a[i] = f[k] + (b[k] - f[k]) * share[i] / L;
      return a;
    });
    for (let i = 0; i < N; i++) if (share[i]) prio[i] = 1;
    const mix = (a) => (q, c) => {
      for (let k = 0; k < 3; k++) ch[k][q] = ch[k][q] * (1 - a) + c[k] * a;
    };
    for (let z = 0; z < L; z++) if (z !== focus) paintNets(z * N, mix(A));
    paintNets(focus * N, mix(1));
    for (let i = 0; i < N; i++) px[i] = pack([ch[0][i], ch[1][i], ch[2][i]]);
    paintNets(-1, null);                              // every layer's pins on top
  }
  function compose() {
    px.fill(P.free);
    prio.fill(0);
    if (layer < 0) blend();
    else {
      eachBlocked((i) => { px[i] = P.blocked; prio[i] = 1; }, layer * N, layer * N + N);
      paintNets(layer * N, null);
    }
    bctx.putImageData(img, 0, 0);
    mips = [];
  }
  compose();
  tick("drawn");
  const unrouted = [];
  for (let i = 0; i < n; i++) if (isUn(i)) unrouted.push(i);
  const unroutedPins = [];
  for (const i of unrouted) {
    for (let k = pinStart[i]; k < pinStart[i + 1]; k++) unroutedPins.push(pins[k]);
  }
  const viaWords = " \u00b7 " + vias.length + (vias.length === 1 ? " via" : " vias");
  $("summary").textContent = W + " \u00d7 " + H + (LAYERS ? " \u00d7 " + L + " layers" : "") +
    " \u00b7 " + (hasResult ? D.routed + "/" + n + " nets routed \u00b7 wirelength " +
    D.wirelength + (LAYERS ? viaWords : "") + " \u00b7 " + D.mode + " \u00b7 " + D.engine :
    n + " nets, not routed");
  const keys = $("keys");
  key(keys, css(C.blocked), "blockage");
  key(keys, "#999", "pin (black square when zoomed in)");
  if (hasResult) key(keys, "transparent", "pin of an unrouted net", "#d00000");
  if (LAYERS) {
    key(keys, "#fff", "via: a square with a cross where a wire changes layer");
    KIND.blendLabel = () => "all layers (" + LAYERS[focus].name + " on top)";
  }
  $("marksrow").hidden = !unrouted.length;
  $("marks").onchange = draw;

  if (D.congestion) {
    const cg = await blob(D.congestion), mx = D.congestion_max || 1, heat = lut(D.heat);
    overlay = {on: false, data: null, src: null};
    KIND.heat = () => {
      // the shown layer's history cost; all layers: each cell's largest
      let v = cg;
      if (LAYERS && layer >= 0) v = cg.subarray(layer * N, layer * N + N);
      else if (LAYERS) {
        v = new Float32Array(N);
        for (let q = 0; q < NT; q++) if (cg[q] > v[q % N]) v[q % N] = cg[q];
      }
      const c = document.createElement("canvas");
      c.width = W; c.height = H;
      const cx2 = c.getContext("2d"), im = cx2.createImageData(W, H);
      const p = new Uint32Array(im.data.buffer), pr = new Uint8Array(N);
      for (let i = 0; i < N; i++) {
        if (v[i] > 0) {
          const t = Math.min(1, v[i] / mx), h = heat[Math.round(t * 255)];
          p[i] = (h & 0x00ffffff | (Math.round(120 + 120 * t) << 24)) >>> 0;
          pr[i] = 1 + Math.round(t * 254);
        }
      }
      cx2.putImageData(im, 0, 0);
      overlay.data = v;
      overlay.src = {c: c, p: pr, px: p, list: []};
    };
    KIND.heat();
    $("congrow").hidden = false;
    $("congmax").textContent = String(+mx.toPrecision(4));
    bar($("congbar"), heat);
    $("cong").onchange = (e) => { overlay.on = e.target.checked; draw(); };
  }
  KIND.layer = () => { compose(); if (KIND.heat) KIND.heat(); };

  function ownerOf(i) {
    let t;
    if (pinOf.has(i)) {
      const k = pinOf.get(i);
      t = "pin of net " + JSON.stringify(names[k]) + (isUn(k) ? " (unrouted)" : "");
    } else if (owner[i]) t = "wire of net " + JSON.stringify(names[owner[i] - 1]);
    else if (blocked(i)) t = "blockage";
    else t = "free";
    return viaAt.has(i) ? t + " (via)" : t;
  }
  KIND.owner = (i) => {
    let t = layerWords(ownerOf, i);
    if (overlay && overlay.data[i] > 0) t += " \u00b7 history cost " + +overlay.data[i]
      .toPrecision(4);
    return t;
  };
  KIND.click = (i) => {
    if (i < 0) return;
    let c = LAYERS ? -1 : i;
    for (let z = L - 1; LAYERS && z >= 0; z--) {       // all layers: the top one's net
      const q = z * N + i;
      if ((layer < 0 || z === layer) && (pinOf.has(q) || owner[q])) { c = q; break; }
    }
    const k = c < 0 ? -1 : pinOf.has(c) ? pinOf.get(c) : owner[c] - 1;
    select(k, false);
  };
  KIND.clear = () => select(-1, false);
  function pinMarks(from, to, s) {
    // zoomed in, a pin is its net's colour with a centred mark, as in the PNG
    const m = Math.max(1, Math.floor(s / 2)), o = (s - m) / 2;
    for (let k = from; k < to; k++) {
      const c = pins[k], i = pinNet[k], e = c % N;
      if (!onShown(c) || !inView(c, s)) continue;
      const b = box(c, 0);
      ctx.fillStyle = css(col(i)); ctx.fillRect(b[0], b[1], b[2], b[3]);
      const x = view.ox + (e % W) * s, y = view.oy + Math.floor(e / W) * s;
      ctx.fillStyle = css(isUn(i) ? C.unrouted_pin : C.pin);
      ctx.fillRect(Math.round(x + o), Math.round(y + o), m, m);
    }
  }
  KIND.paint = (s) => {
    const dpr = window.devicePixelRatio || 1;
    if (s >= 4) pinMarks(0, pins.length, s);
    if (vias.length) viaMarks(vias);
    if (sel >= 0) {
      ctx.fillStyle = "rgba(247,247,242,0.8)";
      ctx.fillRect(view.ox, view.oy, W * s, H * s);
      ctx.fillStyle = css(col(sel));
      const d = 2 / dpr;
      for (let k = cellStart[sel]; k < cellStart[sel + 1]; k++) {
        if (!onShown(cells[k])) continue;
        const b = box(cells[k], d); ctx.fillRect(b[0], b[1], b[2], b[3]);
      }
      for (let k = pinStart[sel]; k < pinStart[sel + 1]; k++) {
        if (!onShown(pins[k])) continue;
        const b = box(pins[k], d); ctx.fillRect(b[0], b[1], b[2], b[3]);
      }
      if (s >= 4) pinMarks(pinStart[sel], pinStart[sel + 1], s);
      if (viasN[sel]) viaMarks(vias.subarray(viaStart[sel], viaStart[sel + 1]));
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
    return "len " + length[i] + " \u00b7 " + (LAYERS ? viasN[i] + (viasN[i] === 1 ? " via" :
      " vias") : bendsA[i] + " bends") + " \u00b7 #" + order[i];
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
        add("length", String(length[i]));
        if (LAYERS) add("vias", String(viasN[i])); else add("bends", String(bendsA[i]));
        add("order", String(order[i]));
      }
    }
    const ps = [];
    for (let k = pinStart[i]; k < Math.min(pinStart[i + 1], pinStart[i] + 12); k++) {
      const c = pins[k] % N;
      ps.push("[" + c % W + ", " + Math.floor(c / W) + (LAYERS ? ", " +
        LAYERS[zOf(pins[k])].name : "") + "]");
    }
    add("pins (" + pinsN[i] + ")", ps.join(" ") + (pinsN[i] > 12 ? " \u2026" : ""));
    const b = document.createElement("button");
    b.textContent = "zoom to net"; b.onclick = () => zoomTo(i);
    box.append(b);
  }
  function zoomTo(i) {
    let x0 = W, y0 = H, x1 = -1, y1 = -1;
    const grow = (c) => {
      c %= N;
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
"""

#: A wavefront: the level slider, the path, the root and the target.
WAVEFRONT = r"""
// --- a wavefront --------------------------------------------------------------------------
async function wavefront() {
  $("wavepanel").hidden = false;
  const top = D.top, vir = lut(D.viridis);
  const lev = await blob(D.levels);                 // level + 1, 0 not reached
  const ob = await blob(D.others);
  const other = (i) => (ob[i >> 3] >> (i & 7)) & 1;
  const pc = await blob(D.path_codes), path = decodeSteps(pc, await blob(D.path_jumps),
    new Uint32Array(pc.length));
  const total = new Uint32Array(top + 2);          // every layer's cells at each level
  for (let i = 0; i < NT; i++) if (lev[i]) total[lev[i]]++;
  const shade = (l) => vir[Math.round(l / Math.max(top, 1) * 255)];
  let count, start, byLevel, k = -1;
  function shownLevels() {
    // the shown layer's levels; all layers: each cell's earliest
    if (!LAYERS) return lev;
    if (layer >= 0) return lev.subarray(layer * N, layer * N + N);
    const out = new lev.constructor(N);
    for (let q = 0; q < NT; q++) {
      const v = lev[q], i = q % N;
      if (v && (!out[i] || v < out[i])) out[i] = v;
    }
    return out;
  }
  function background() {
    // all layers: blocked where every layer is, another net's where every layer is
    // blocked or that net's
    const nb = new Uint8Array(N), no = new Uint8Array(N);
    eachBit(bits, (c) => { nb[c % N]++; }, 0, NT);
    eachBit(ob, (c) => { if (!blocked(c)) no[c % N]++; }, 0, NT);
    for (let i = 0; i < N; i++) {
      if (nb[i] === L) { px[i] = P.blocked; prio[i] = 1; }
      else if (no[i] && nb[i] + no[i] === L) { px[i] = P.other; prio[i] = 1; }
    }
  }
  function rebuild() {
    // cells by level, so that moving the slider repaints only the levels in between
    const lv = shownLevels();
    count = new Uint32Array(top + 2);
    for (let i = 0; i < N; i++) if (lv[i]) count[lv[i]]++;
    start = new Uint32Array(top + 2);
    for (let l = 1; l <= top; l++) start[l + 1] = start[l] + count[l];
    byLevel = new Uint32Array(start[top + 1] + count[top + 1]);
    const fill = start.slice();
    for (let i = 0; i < N; i++) if (lv[i]) byLevel[fill[lv[i]]++] = i;
    px.fill(P.wave_free);
    prio.fill(0);
    if (layer < 0) background();
    else {
      const lo = layer * N;
      eachBit(ob, (i) => { px[i] = P.other; prio[i] = 1; }, lo, lo + N);
      eachBlocked((i) => { px[i] = P.blocked; prio[i] = 1; }, lo, lo + N);
    }
    k = -1;
  }
  rebuild();
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
    $("levelinfo").textContent = "level " + l + " of " + top + " \u00b7 " + (!LAYERS ?
      count[l + 1] + " cells at this level" : layer < 0 ? total[l + 1] +
      " cells at this level on all layers" : count[l + 1] + " cells at this level on " +
      LAYERS[layer].name + " \u00b7 " + total[l + 1] + " on all layers");
    document.body.dataset.level = String(l);
    bar($("bar"), vir, l / Math.max(top, 1));
    draw();
  }
  $("summary").textContent = W + " \u00d7 " + H + (LAYERS ? " \u00d7 " + L + " layers" : "") +
    " \u00b7 " + (top + 1) + " levels \u00b7 " + total.reduce((a, b) => a + b, 0) +
    " cells reached";
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
  function ownerOf(i) {
    let t = blocked(i) ? "blockage" : other(i) ? "other net" :
      lev[i] ? "level " + (lev[i] - 1) : "not reached";
    if (isRoot.has(i)) t += " \u00b7 root";
    if (i === D.target) t += " \u00b7 target";
    return t;
  }
  KIND.owner = (i) => layerWords(ownerOf, i);
  KIND.layer = () => { const l = Math.max(k, 0); rebuild(); setLevel(l); };
  KIND.blendLabel = () => "all layers (earliest level)";
  const pathVias = [];                              // the path's layer changes
  for (let q = 1; LAYERS && q < path.length; q++) {
    if (Math.abs(path[q] - path[q - 1]) === N) pathVias.push(Math.min(path[q], path[q - 1]));
  }
  if (pathVias.length) key(keys, "#fff", "via: a square with a cross");
  // two cells joined by a step on the shown layer (all layers: seen from above)
  const near = (a, b) => {
    if (a < 0 || !onShown(a) || !onShown(b)) return false;
    const d = Math.abs(a - b);
    if (layer < 0 && d === N) return true;
    return zOf(a) === zOf(b) && (d === W || (d === 1 && Math.floor(a / W) ===
      Math.floor(b / W)));
  };
  KIND.paint = (s) => {
    const cx = (c) => view.ox + (c % N % W + 0.5) * s, cy = (c) => view.oy +
      (Math.floor(c % N / W) + 0.5) * s;
    if ($("showpath").checked && path.length) {
      ctx.strokeStyle = css(C.path); ctx.lineWidth = Math.max(2, s * 0.2);
      ctx.lineCap = "round"; ctx.lineJoin = "round";
      const seen = new Set();
      ctx.beginPath();
      for (let q = 0; q < path.length; q++) {
        const c = path[q], prev = q ? path[q - 1] : -1;
        if (!onShown(c)) { seen.add(c); continue; }
        if (near(prev, c)) ctx.lineTo(cx(c), cy(c));
        else {
          const j = [c - W, c - 1, c + 1, c + W, c - N, c + N].find((a) => seen.has(a) &&
            near(a, c));
          if (j !== undefined) { ctx.moveTo(cx(j), cy(j)); ctx.lineTo(cx(c), cy(c)); }
          else { ctx.moveTo(cx(c), cy(c)); ctx.lineTo(cx(c), cy(c)); }
        }
        seen.add(c);
      }
      ctx.stroke();
      if (pathVias.length) viaMarks(pathVias);
    }
    const r = Math.max(5, Math.min(0.35 * s, 12));
    for (const c of D.roots) {
      if (!onShown(c)) continue;
      ctx.beginPath(); ctx.arc(cx(c), cy(c), r, 0, 2 * Math.PI);
      ctx.fillStyle = "#fff"; ctx.fill(); ctx.lineWidth = 1.5; ctx.strokeStyle = "#000";
      ctx.stroke();
    }
    if (D.target !== null && onShown(D.target)) {
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
"""

__all__ = ["ROUTES", "WAVEFRONT"]
