"""The HTML viewer in a real headless Chromium, offline: what a user sees, read from screenshots.

Marked ``browser``. They need Debian's ``chromium`` and ``chromium-driver`` packages (or
``MAZEROUTE_CHROMIUM`` / ``MAZEROUTE_CHROMEDRIVER`` naming the two programs) and the
``selenium`` package; where one is missing they skip and say which. Nothing is downloaded
while they run: the driver is named explicitly (Selenium Manager is never asked), the
browser's network is switched off and every host name resolves to nothing.

Pixels are read from screenshots at the centres of cells. Where a cell lies on screen is
the page's own transform (``window.mazeview.view()``), checked against the coordinates the
page shows under the mouse pointer, so a wrong transform fails the tests too.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
import yaml
from PIL import Image

from mazeroute.cli import main
from mazeroute.engines import UNREACHED
from mazeroute.readers import parse_layout
from mazeroute.render import BLOCKED, FREE, OTHER, PIN, UNROUTED_PIN, net_colour
from mazeroute.router import Router
from mazeroute.view import FRONT, WAVE_FREE, save_wavefront_html

pytestmark = pytest.mark.browser


def _program(env: str, *names: str) -> str | None:
    """The program ``env`` names, else the first of ``names`` found on the PATH or in
    Debian's chromium folder."""
    if os.environ.get(env):
        return os.environ[env] if os.access(os.environ[env], os.X_OK) else None
    for name in names:
        for found in (shutil.which(name), f"/usr/lib/chromium/{name}"):
            if found and os.access(found, os.X_OK):
                return found
    return None


CHROMIUM = _program("MAZEROUTE_CHROMIUM", "chromium", "chromium-browser")
DRIVER = _program("MAZEROUTE_CHROMEDRIVER", "chromedriver")
try:
    import selenium  # noqa: F401
except ImportError:
    SELENIUM = False
else:
    SELENIUM = True

if not SELENIUM:
    pytest.skip("selenium is not installed (python -m pip install -e '.[test]')",
                allow_module_level=True)
if CHROMIUM is None or DRIVER is None:
    pytest.skip(f"no headless browser (chromium: {CHROMIUM or 'not found'}, chromedriver: "
                f"{DRIVER or 'not found'}): install Debian's chromium and chromium-driver "
                "(apt-get install chromium chromium-driver; .ci/run does it)",
                allow_module_level=True)

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

WINDOW = (1200, 800)

# Two unrouted nets (one with a walled-in root, one with a walled-in target), a name that
# would fetch a picture if it were ever written as HTML, and names in other scripts.
EVIL = '<img src="http://127.0.0.1:9/leak.png">'
LAYOUT = {
    "name": "browser",
    "width": 24, "height": 16,
    "blockages": [[6, 2, 7, 10], [13, 5, 18, 6], [2, 12, 4, 12],
                  [21, 12, 23, 12], {"cell": [21, 13]}, [21, 14, 23, 14],
                  [9, 12, 9, 14], {"cell": [11, 13]}, {"cell": [10, 12]},
                  {"cell": [10, 14]}],
    "nets": [
        {"name": "clk", "pins": [[0, 0], [23, 0]]},
        {"name": "data1", "pins": [[1, 15], [12, 3]]},
        {"name": "时钟", "pins": [[3, 3], [3, 10]]},
        {"name": EVIL, "pins": [[14, 9], [20, 3]]},
        {"name": "stuck_root", "pins": [[22, 13], [0, 8]]},
        {"name": "Привет", "pins": [[16, 15], [23, 9]]},
        {"name": "stuck_target", "pins": [[5, 14], [10, 13]]},
    ],
}
UNROUTED = {"stuck_root", "stuck_target"}


# -- the browser ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def driver():
    os.environ.setdefault("SE_OFFLINE", "true")          # Selenium Manager: never download
    o = webdriver.ChromeOptions()
    o.binary_location = CHROMIUM
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--window-size={WINDOW[0]},{WINDOW[1]}", "--force-color-profile=srgb",
              "--force-device-scale-factor=1", "--host-resolver-rules=MAP * ~NOTFOUND",
              "--disable-background-networking", "--disable-component-update",
              "--no-first-run", "--disable-sync"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    d = webdriver.Chrome(service=Service(DRIVER), options=o)
    try:
        d.execute_cdp_cmd("Network.enable", {})
        d.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        d.set_window_size(*WINDOW)
        # a script error stops the wait for the page at once, with the error
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
            "window.__errors = [];"
            "addEventListener('error', (e) => __errors.push(String(e.message)));"
            "addEventListener('unhandledrejection', (e) => __errors.push(String(e.reason)));")})
        yield d
    finally:
        d.quit()


def _open(d, path: Path) -> None:
    d.get_log("performance")                              # drop what earlier pages left
    d.get_log("browser")
    d.get(path.resolve().as_uri())
    end = time.monotonic() + 60
    while True:
        ready, errors = d.execute_script(
            "return [!!(window.mazeview && window.mazeview.ready), window.__errors || []]")
        assert not errors, f"script errors in {path.name}: {errors}"
        if ready:
            break
        if time.monotonic() > end:
            raise AssertionError(f"the page never got ready: {d.get_log('browser')}")
        time.sleep(0.05)
    _settle(d)


def _settle(d) -> None:
    """Wait two animation frames, so that the last change is painted."""
    d.execute_async_script("const done = arguments[0];"
                           "requestAnimationFrame(() => requestAnimationFrame(done));")


def _requests(d, page: Path) -> list[str]:
    """Every request the page made or tried (other than loading itself), and every
    Content-Security-Policy refusal; drains the logs."""
    own = page.resolve().as_uri()
    out = []
    for e in d.get_log("performance"):
        m = json.loads(e["message"])["message"]
        if m["method"] in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            url = m["params"].get("request", {}).get("url") or m["params"].get("url", "")
            if url != own:
                out.append(url)
    for e in d.get_log("browser"):
        if "Content Security Policy" in e["message"] or "Refused to" in e["message"]:
            out.append("CSP: " + e["message"])
    return out


def _shot(d) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(d.get_screenshot_as_png())).convert("RGB"))


def _canvas(d):
    return d.find_element(By.ID, "cv")


def _centre(d, x: int, y: int) -> tuple[int, int]:
    """Viewport pixel at the centre of cell (x, y), from the page's transform."""
    v = d.execute_script("return window.mazeview.view()")
    r = d.execute_script("return document.getElementById('cv').getBoundingClientRect()")
    return (int(r["left"] + v["ox"] + (x + 0.5) * v["s"]),
            int(r["top"] + v["oy"] + (y + 0.5) * v["s"]))


def _hover(d, x: int, y: int) -> str:
    """Point at cell (x, y) and return what the page says is under the pointer."""
    cv = _canvas(d)
    px, py = _centre(d, x, y)
    r = d.execute_script("return arguments[0].getBoundingClientRect()", cv)
    ActionChains(d).move_to_element_with_offset(
        cv, px - int(r["left"] + r["width"] / 2), py - int(r["top"] + r["height"] / 2)).perform()
    _settle(d)
    return d.find_element(By.ID, "hover").text


def _close(a, b, tol: int = 3) -> bool:
    return int(np.abs(np.asarray(a, int) - np.asarray(b, int)).max()) <= tol


# -- the pages -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def routed(tmp_path_factory):
    """``route --html`` and ``view --routes`` on the layout: both pages and routes.json."""
    d = tmp_path_factory.mktemp("browser")
    lay = d / "browser.yaml"
    lay.write_text(yaml.safe_dump(LAYOUT, allow_unicode=True), encoding="utf-8")
    assert main(["route", str(lay), "-o", str(d / "out"), "--html", "--backend", "cpu",
                 "--no-png", "-q"]) == 0
    routes = json.loads((d / "out" / "routes.json").read_text(encoding="utf-8"))
    assert {n["name"] for n in routes["nets"] if not n["routed"]} == UNROUTED
    assert main(["view", str(lay), "--routes", str(d / "out" / "routes.json"),
                 "-o", str(d / "view.html"), "-q"]) == 0
    return {"route": d / "out" / "view.html", "view": d / "view.html", "routes": routes,
            "layout": parse_layout(LAYOUT)}


def test_pointer_shows_the_cell_and_its_owner(driver, routed):
    _open(driver, routed["view"])
    assert re.fullmatch(r"x 6, y 4 · blockage", _hover(driver, 6, 4))
    assert _hover(driver, 0, 0) == 'x 0, y 0 · pin of net "clk"'
    assert _hover(driver, 22, 13) == 'x 22, y 13 · pin of net "stuck_root" (unrouted)'
    wire = next(c for c in routed["routes"]["nets"][1]["cells"]
                if c not in LAYOUT["nets"][1]["pins"])
    assert _hover(driver, *wire) == f'x {wire[0]}, y {wire[1]} · wire of net "data1"'
    assert _hover(driver, 23, 15).endswith("· free")
    # a click on a wire selects its net, a click on a free cell clears the selection
    body = driver.find_element(By.TAG_NAME, "body")
    _hover(driver, *wire)
    ActionChains(driver).click().perform()
    _settle(driver)
    assert body.get_attribute("data-selected") == "data1"
    assert driver.find_element(By.CSS_SELECTOR, "#list .net.sel").get_attribute(
        "data-name") == "data1"
    _hover(driver, 23, 15)
    ActionChains(driver).click().perform()
    _settle(driver)
    assert body.get_attribute("data-selected") == ""


@pytest.mark.parametrize("page", ["route", "view"])
def test_unrouted_list_matches_routes_json(driver, routed, page):
    _open(driver, routed[page])
    want = [n["name"] for n in routed["routes"]["nets"] if not n["routed"]]
    rows = driver.find_elements(By.CSS_SELECTOR, "#list .net:not([hidden])")
    names = [r.get_attribute("data-name") for r in rows]
    assert sorted(names) == sorted(n["name"] for n in routed["routes"]["nets"])
    assert names[:len(want)] == want                       # unrouted first, in file order
    for r in rows[:len(want)]:
        assert "unrouted" in r.text
    assert driver.find_element(By.ID, "count").text.startswith(
        f"{len(want)} unrouted · {len(names) - len(want)} routed")
    Select(driver.find_element(By.ID, "filter")).select_by_value("unrouted")
    rows = driver.find_elements(By.CSS_SELECTOR, "#list .net:not([hidden])")
    assert [r.get_attribute("data-name") for r in rows] == want
    # names are text, never HTML: the list shows the would-be picture tag as written
    evil = driver.find_elements(By.CSS_SELECTOR, "#list img")
    assert evil == []
    # every pin of an unrouted net is ringed in red on the grid
    img = _shot(driver)
    s = driver.execute_script("return window.mazeview.view()")["s"]
    r = max(6, 0.7 * s)
    for net in LAYOUT["nets"]:
        if net["name"] in UNROUTED:
            for x, y in net["pins"]:
                cx, cy = _centre(driver, x, y)
                ring = img[cy, int(cx + r - 2):int(cx + r + 3)]
                assert any(_close(p, (208, 0, 0), 40) for p in ring), (net["name"], ring)
                assert _close(img[cy, cx], UNROUTED_PIN)      # the pin's own mark


def test_reasons_of_unrouted_nets_are_shown(driver, tmp_path):
    from mazeroute.router import route
    from mazeroute.view import save_view_html

    lay = parse_layout(LAYOUT)
    res = route(lay, backend="cpu", mode="sequential")
    res.nets[4].reason = "root walled in"
    page = save_view_html(lay, res, tmp_path / "r.html")
    _open(driver, page)
    rows = driver.find_elements(By.CSS_SELECTOR, "#list .net:not([hidden])")
    assert [r.text.split("\n")[-1] for r in rows[:2]] == ["unrouted: root walled in",
                                                            "unrouted"]
    rows[0].click()
    _settle(driver)
    assert "reason: root walled in" in driver.find_element(By.ID, "detail").text


def test_search_and_click_highlights_a_net(driver, routed):
    _open(driver, routed["view"])
    box = driver.find_element(By.ID, "search")
    box.send_keys("DATA")                                  # search ignores case
    rows = driver.find_elements(By.CSS_SELECTOR, "#list .net:not([hidden])")
    assert [r.get_attribute("data-name") for r in rows] == ["data1"]
    rows[0].click()
    _settle(driver)
    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-selected") == "data1"
    assert "data1" in driver.find_element(By.ID, "detail").text
    nets = routed["routes"]["nets"]
    cells = {tuple(c) for c in nets[1]["cells"]}
    pins = {tuple(p) for n in LAYOUT["nets"] for p in n["pins"]}
    wire = sorted(cells - pins)
    # the transform agrees with what the pointer shows, then read one screenshot
    for c in (wire[0], wire[-1]):
        assert _hover(driver, *c).startswith(f"x {c[0]}, y {c[1]} · wire of net \"data1\"")
    img = _shot(driver)
    s = driver.execute_script("return window.mazeview.view()")["s"]
    assert s >= 8
    for x, y in wire:
        px, py = _centre(driver, x, y)
        assert _close(img[py, px], net_colour(1)), ((x, y), img[py, px])
    for x, y in LAYOUT["nets"][1]["pins"]:                 # its pins: marked, not dimmed
        px, py = _centre(driver, x, y)
        assert _close(img[py, px], PIN)
        assert _close(img[py, int(px - s / 2 + 2)], net_colour(1))
    # every other net's wire is dimmed towards the background
    rings = [_centre(driver, *p) for n in LAYOUT["nets"]
             if n["name"] in UNROUTED or n["name"] == "data1" for p in n["pins"]]
    box = driver.execute_script("return document.getElementById('cv').getBoundingClientRect()")
    checked = 0
    for i, n in enumerate(nets):
        if i == 1:
            continue
        for x, y in n["cells"]:
            if (x, y) in pins:
                continue
            px, py = _centre(driver, x, y)
            if not (box["left"] <= px < box["right"] and box["top"] <= py < box["bottom"]):
                continue                                  # panned out of sight
            if min(np.hypot(px - a, py - b) for a, b in rings) < 1.1 * s + 8:
                continue                                  # under a ring
            dim = 0.2 * np.asarray(net_colour(i)) + 0.8 * np.asarray(FREE)
            assert _close(img[py, px], dim, 4), ((x, y), img[py, px], dim)
            checked += 1
    assert checked > 20
    # Escape clears the highlight: the other wires get their own colours back
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    _settle(driver)
    img = _shot(driver)
    x, y = next(c for c in nets[0]["cells"] if tuple(c) not in pins)
    px, py = _centre(driver, x, y)
    assert _close(img[py, px], net_colour(0))


def _blockage_width(img: np.ndarray, row: int) -> int:
    """Longest run of blockage-coloured pixels on a screenshot row."""
    hit = np.all(np.abs(img[row].astype(int) - BLOCKED) <= 2, axis=1)
    best = run = 0
    for h in hit:
        run = run + 1 if h else 0
        best = max(best, run)
    return best


def test_zoom_changes_the_scale(driver, routed):
    _open(driver, routed["view"])
    body = driver.find_element(By.TAG_NAME, "body")
    s0 = float(body.get_attribute("data-scale"))
    # blockage [13, 5, 18, 6]: 6 cells wide; measure it on screen before and after
    _, row = _centre(driver, 15, 5)
    w0 = _blockage_width(_shot(driver), row)
    assert abs(w0 - 6 * s0) <= 2
    cv = _canvas(driver)
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(cv), 0, -300).perform()
    _settle(driver)
    s1 = float(body.get_attribute("data-scale"))
    assert s1 == pytest.approx(s0 * 1.2 ** 3, rel=1e-6)
    _, row = _centre(driver, 15, 5)
    w1 = _blockage_width(_shot(driver), row)
    assert abs(w1 - 6 * s1) <= 2 and w1 > w0 + 10
    assert driver.find_element(By.ID, "zoom").text == f"{s1:.2f} px/cell"
    # keyboard: '-' zooms out about the centre, 'f' fits the grid again
    ActionChains(driver).send_keys("-").perform()
    _settle(driver)
    assert float(body.get_attribute("data-scale")) == pytest.approx(s1 * 0.8)
    ActionChains(driver).send_keys("f").perform()
    _settle(driver)
    assert float(body.get_attribute("data-scale")) == pytest.approx(s0)
    # arrow keys pan by a tenth of the canvas
    w = driver.execute_script("return document.getElementById('cv').clientWidth")
    v0 = driver.execute_script("return window.mazeview.view()")
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    _settle(driver)
    v1 = driver.execute_script("return window.mazeview.view()")
    assert v1["ox"] == pytest.approx(v0["ox"] - w * 0.1) and v1["oy"] == v0["oy"]
    # a drag pans by exactly the distance dragged
    v0 = driver.execute_script("return window.mazeview.view()")
    ActionChains(driver).move_to_element(cv).click_and_hold().move_by_offset(40, 0) \
        .move_by_offset(20, 30).release().perform()
    _settle(driver)
    v1 = driver.execute_script("return window.mazeview.view()")
    assert (v1["ox"] - v0["ox"], v1["oy"] - v0["oy"]) == (60, 30)
    assert v1["s"] == v0["s"]


def test_no_request_leaves_the_page(driver, routed, tmp_path):
    page = routed["view"]
    _open(driver, page)
    _hover(driver, 3, 5)
    driver.find_element(By.ID, "search").send_keys("时")
    driver.find_elements(By.CSS_SELECTOR, "#list .net:not([hidden])")[0].click()
    ActionChains(driver).scroll_from_origin(ScrollOrigin.from_element(_canvas(driver)), 0,
                                            200).perform()
    _settle(driver)
    assert _requests(driver, page) == []
    # the check itself can fail: a copy that asks for a picture is caught, with the
    # page's policy (refused) and without it (sent)
    text = page.read_text(encoding="utf-8")
    leak = "<script>new Image().src = 'http://127.0.0.1:9/leak.png';</script></body>"
    for name, t in (("refused", text), ("sent", re.sub(r'<meta http-equiv="Content-Sec'
                                                       r'urity-Policy"[^>]*>', "", text))):
        bad = tmp_path / f"{name}.html"
        bad.write_text(t.replace("</body>", leak), encoding="utf-8")
        _open(driver, bad)
        time.sleep(0.2)
        assert _requests(driver, bad), name


# -- a wavefront ---------------------------------------------------------------------------
WAVE = parse_layout({"name": "wave", "width": 22, "height": 14,
                     "blockages": [[5, 0, 5, 9], [11, 4, 11, 13], [16, 2, 19, 3],
                                   {"cell": [8, 12]}],
                     "nets": [{"name": "w", "pins": [[1, 6], [20, 11]]},
                              {"name": "o", "pins": [[14, 1], [14, 9]]}]}, "wave.yaml")


@pytest.fixture(scope="module")
def wavefront(tmp_path_factory):
    router = Router(WAVE, "cpu")
    levels = router.full_wavefront(0)
    net = router.route_net(0)
    assert net.routed
    path = tmp_path_factory.mktemp("wave") / "wave.html"
    save_wavefront_html(WAVE, levels, path, roots=[(1, 6)], target=(20, 11),
                        path_cells=net.cells, others=WAVE.nets[1].pins)
    return path, levels


def _slide_to(d, k: int) -> None:
    slider = d.find_element(By.ID, "slider")
    slider.send_keys(Keys.HOME)
    for _ in range(k):
        slider.send_keys(Keys.ARROW_RIGHT)
    _settle(d)


@pytest.mark.parametrize("k", [1, 4, 9, -1])
def test_wavefront_slider_shows_exactly_the_cells_of_level_k(driver, wavefront, k):
    page, levels = wavefront
    _open(driver, page)
    top = int(levels[levels != UNREACHED].max())
    k = top if k < 0 else k
    assert driver.find_element(By.ID, "slider").get_attribute("max") == str(top)
    driver.find_element(By.ID, "showpath").click()         # the path off: cells only
    _slide_to(driver, k)
    info = driver.find_element(By.ID, "levelinfo").text
    assert info.startswith(f"level {k} of {top} · {int((levels == k).sum())} cells")
    img = _shot(driver)
    marks = {(1, 6), (20, 11)}
    front = []
    for y in range(WAVE.height):
        for x in range(WAVE.width):
            if (x, y) in marks:
                continue
            px, py = _centre(driver, x, y)
            got = img[py, px]
            if _close(got, FRONT, 6):
                front.append((x, y))
            lv = int(levels[y, x])
            if WAVE.blocked[y, x]:
                assert _close(got, BLOCKED), (x, y)
            elif (x, y) in WAVE.nets[1].pins:
                assert _close(got, OTHER), (x, y)
            elif lv > k:                                   # UNREACHED too
                assert _close(got, WAVE_FREE), (x, y)       # not reached yet
            elif lv < k:
                assert not _close(got, WAVE_FREE, 30) and not _close(got, FRONT, 60)
    want = sorted((int(x), int(y)) for y, x in zip(*np.nonzero(levels == k))
                  if (x, y) not in marks)
    assert sorted(front) == want and len(want) > 0
    # the colour bar's marker sits at k / top of its width
    bar = driver.find_element(By.ID, "bar")
    r = driver.execute_script("return arguments[0].getBoundingClientRect()", bar)
    row = img[int(r["top"] + r["height"] / 2), int(r["left"]):int(r["left"] + r["width"])]
    at = np.nonzero(np.all(np.abs(row.astype(int) - FRONT) <= 6, axis=1))[0]
    assert at.size and abs(at.mean() - 1 - k / top * (r["width"] - 3)) <= 2


def test_wavefront_path_is_drawn_on_top(driver, wavefront):
    page, levels = wavefront
    _open(driver, page)
    img = _shot(driver)
    router = Router(WAVE, "cpu")
    cells = router.route_net(0).cells
    hits = sum(_close(img[_centre(driver, x, y)[::-1]], (228, 0, 43), 6)
               for x, y in cells[1:-1])
    assert hits == len(cells) - 2
    assert _hover(driver, 3, 6) == f"x 3, y 6 · level {int(levels[6, 3])}"
    assert _requests(driver, page) == []


def test_congestion_layer_toggles(driver, tmp_path):
    from mazeroute.router import route
    from mazeroute.view import save_view_html

    lay = parse_layout(LAYOUT)
    cong = np.zeros((lay.height, lay.width), np.float32)
    cong[1:4, 14:20] = 2.0
    cong[2, 16] = 8.0
    page = save_view_html(lay, route(lay, backend="cpu"), tmp_path / "c.html", congestion=cong)
    _open(driver, page)
    box = driver.find_element(By.ID, "cong")
    assert box.is_displayed() and not box.is_selected()
    assert driver.find_element(By.ID, "congmax").text == "8"
    cells = [(x, y) for y in range(1, 4) for x in range(14, 20)
             if (x, y) not in {tuple(p) for n in LAYOUT["nets"] for p in n["pins"]}]
    before = _shot(driver)
    where = [_centre(driver, x, y)[::-1] for x, y in cells]
    box.click()
    _settle(driver)
    after = _shot(driver)
    changed = [not _close(before[p], after[p], 10) for p in where]
    assert all(changed)
    assert "history cost 8" in _hover(driver, 16, 2)
    # cells without history cost keep their colour
    for x, y in ((2, 14), (10, 10)):
        p = _centre(driver, x, y)[::-1]
        assert _close(before[p], after[p], 2)
    box.click()
    _settle(driver)
    again = _shot(driver)
    assert all(_close(before[p], again[p], 2) for p in where)
    assert _requests(driver, page) == []


@pytest.mark.parametrize("width", [1400, 1920])
def test_names_of_unrouted_nets_stay_visible_beside_long_reasons(driver, tmp_path, width):
    from mazeroute.router import route
    from mazeroute.view import save_view_html
    from tests.corpus import unroutable_layout

    lay = unroutable_layout()
    res = route(lay, backend="cpu", mode="negotiate", max_iterations=5)
    unrouted = [i for i, r in enumerate(res.nets) if not r.routed]
    assert len(unrouted) >= 2 and all(res.nets[i].reason for i in unrouted)
    for i in unrouted:                  # reasons far longer than the list is wide
        res.nets[i].reason += "; " + " ".join(f"then tried detour {k}" for k in range(12))
    page = save_view_html(lay, res, tmp_path / "n.html")
    driver.set_window_size(width, 900)
    try:
        _open(driver, page)
        rows = driver.find_elements(By.CSS_SELECTOR, "#list .net:not([hidden])")
        assert [r.get_attribute("data-name") for r in rows[:len(unrouted)]] == \
            [lay.nets[i].name for i in unrouted]
        for r, i in zip(rows, unrouted):
            name, reason = lay.nets[i].name, res.nets[i].reason
            shown, text, row_w = driver.execute_script(
                "const e = arguments[0].querySelector('.nm'), g = document.createRange();"
                "g.selectNodeContents(e); return [e.getBoundingClientRect().width,"
                " g.getBoundingClientRect().width, arguments[0].clientWidth];", r)
            assert text > 0 and shown >= text - 0.5, (width, name, shown, text)
            if len(name) >= 5:
                assert shown > 20, (width, name, shown)
            st = r.find_element(By.CSS_SELECTOR, ".st")
            # the reason: in its row (cut short with an ellipsis) and whole in the tooltip
            assert st.get_attribute("textContent") == "unrouted: " + reason
            assert st.size["width"] > 40 and st.location["x"] + st.size["width"] <= \
                r.location["x"] + row_w + 1
            assert r.get_attribute("title") == f"{name}: unrouted: {reason}"
        rows[0].click()
        _settle(driver)
        assert f"reason: {res.nets[unrouted[0]].reason}" in driver.find_element(
            By.ID, "detail").text
    finally:
        driver.set_window_size(*WINDOW)


# -- a stack of layers ---------------------------------------------------------------------------
TWO_LAYERS = Path(__file__).resolve().parent.parent / "layouts" / "two_layers.yaml"
DARK = (0, 0, 0)


@pytest.fixture(scope="module")
def layered(tmp_path_factory):
    """``route --html`` on the two-layer example: its page, routes and layout."""
    from mazeroute.readers import load_layout

    d = tmp_path_factory.mktemp("layers")
    assert main(["route", str(TWO_LAYERS), "-o", str(d / "out"), "--html", "--no-png",
                 "-q"]) == 0
    routes = json.loads((d / "out" / "routes.json").read_text(encoding="utf-8"))
    assert all(n["routed"] for n in routes["nets"]) and routes["vias"] > 0
    return {"page": d / "out" / "view.html", "routes": routes,
            "layout": load_layout(TWO_LAYERS)}


def _show(d, value: str) -> None:
    Select(d.find_element(By.ID, "layer")).select_by_value(value)
    _settle(d)


def _wires(routes: dict) -> dict[tuple[int, int, int], int]:
    """Every wire cell (x, y, z) that is no pin, with its net's index."""
    pins = {tuple(p) for n in routes["nets"] for p in n["cells"][:1] + n["cells"][-1:]}
    return {tuple(c): i for i, n in enumerate(routes["nets"]) for c in n["cells"]
            if tuple(c) not in pins}


def _vias(routes: dict) -> set[tuple[int, int, int]]:
    """Both cells of every via of the two-pin nets: consecutive cells on two layers."""
    out = set()
    for n in routes["nets"]:
        for a, b in zip(n["cells"], n["cells"][1:]):
            if a[2] != b[2]:
                out |= {tuple(a), tuple(b)}
    return out


def test_layer_selector_switches_what_is_drawn(driver, layered):
    page, routes, lay = layered["page"], layered["routes"], layered["layout"]
    _open(driver, page)
    options = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#layer option")]
    assert options == ["all layers (M1 on top)", "0: M1 H ↔", "1: M2 V ↕"]
    wires, vias = _wires(routes), _vias(routes)
    pins = {tuple(p[:2]) for n in lay.nets for p in n.pins}
    body = driver.find_element(By.TAG_NAME, "body")
    checked = 0
    for z, name in enumerate(["M1", "M2"]):
        _show(driver, str(z))
        assert body.get_attribute("data-layer") == name
        img = _shot(driver)
        for y in range(lay.height):
            for x in range(lay.width):
                if (x, y) in pins or (x, y, z) in vias or (x, y, 1 - z) in vias:
                    continue
                got = img[_centre(driver, x, y)[::-1]]
                if (x, y, z) in wires:                       # this layer's wire
                    assert _close(got, net_colour(wires[(x, y, z)])), (z, x, y, got)
                    checked += 1
                elif lay.blocked[z, y, x]:                    # this layer's blockage only
                    assert _close(got, BLOCKED), (z, x, y, got)
                else:                                         # the other layer's wire: hidden
                    assert _close(got, FREE), (z, x, y, got)
    assert checked > 30
    # the pointer's readout names the layer: M1's blockage is not M2's
    _show(driver, "0")
    assert _hover(driver, 5, 3) == "x 5, y 3 · M1 · blockage"
    _show(driver, "1")
    assert _hover(driver, 5, 3).startswith("x 5, y 3 · M2 · ")
    assert not _hover(driver, 5, 3).endswith("blockage")
    _show(driver, "-1")
    assert body.get_attribute("data-layer") == "all"
    assert _hover(driver, 3, 7) == "x 3, y 7 · M1: free · M2: blockage"
    assert _requests(driver, page) == []


def test_all_layers_blend_with_the_picked_layer_on_top(driver, layered):
    page, routes, lay = layered["page"], layered["routes"], layered["layout"]
    _open(driver, page)
    assert driver.find_element(By.TAG_NAME, "body").get_attribute("data-layer") == "all"
    wires, vias = _wires(routes), _vias(routes)
    pins = {tuple(p[:2]) for n in lay.nets for p in n.pins}
    only = {z: [(x, y) for (x, y, k), i in wires.items() if k == z
                and (x, y, 1 - z) not in wires and (x, y) not in pins
                and not lay.blocked[:, y, x].any()
                and not {(x, y, 0), (x, y, 1)} & vias] for z in (0, 1)}
    assert only[0] and only[1]
    for top in (0, 1):
        if top:
            _show(driver, "1")
            _show(driver, "-1")
            assert Select(driver.find_element(By.ID, "layer")).first_selected_option.text \
                == "all layers (M2 on top)"
        img = _shot(driver)
        for z in (0, 1):
            for x, y in only[z]:
                got, colour = img[_centre(driver, x, y)[::-1]], net_colour(wires[(x, y, z)])
                if z == top:                                  # opaque
                    assert _close(got, colour), (top, z, x, y, got)
                else:                                         # half over the free cell
                    half = (np.asarray(colour) + np.asarray(FREE)) / 2
                    assert _close(got, half, 4), (top, z, x, y, got, half)


def test_vias_are_marked_on_both_layers_they_join(driver, layered):
    page, routes = layered["page"], layered["routes"]
    _open(driver, page)
    vias = _vias(routes)
    s = driver.execute_script("return window.mazeview.view()")["s"]
    assert s >= 20
    for z in (0, 1):
        _show(driver, str(z))
        img = _shot(driver)
        for x, y, k in sorted(vias):
            if k != z:
                continue
            cx, cy = _centre(driver, x, y)
            assert _close(img[cy, cx], DARK, 90), (z, x, y, img[cy, cx])   # the cross
            assert "(via)" in _hover(driver, x, y)
        # a wire cell of no via has no mark
        x, y, _ = next(c for c in sorted(_wires(routes)) if c[2] == z and c not in vias
                       and (c[0], c[1], 1 - z) not in vias)
        cx, cy = _centre(driver, x, y)
        assert not _close(img[cy, cx], DARK, 90)
        assert "(via)" not in _hover(driver, x, y)


def test_a_net_s_pins_are_listed_with_their_layers(driver, layered):
    _open(driver, layered["page"])
    driver.execute_script("window.mazeview.select('data')")
    _settle(driver)
    text = driver.find_element(By.ID, "detail").text
    assert "[0, 5, M1] [15, 5, M2]" in text
    assert re.search(r"vias: [1-9]", text)
    row = driver.find_element(By.CSS_SELECTOR, "#list .net.sel")
    assert re.search(r"len \d+ · \d+ vias?", row.text)
    assert "2 layers" in driver.find_element(By.ID, "summary").text


def test_congestion_of_the_shown_layer(driver, layered, tmp_path):
    from mazeroute.view import routes_result, save_view_html

    lay = layered["layout"]
    res = routes_result(lay, layered["routes"])
    cong = np.zeros(lay.blocked.shape, np.float32)
    cong[0, 0, 13], cong[1, 9, 13] = 3.0, 6.0            # free on both layers
    page = save_view_html(lay, res, tmp_path / "c.html", congestion=cong)
    _open(driver, page)
    driver.find_element(By.ID, "cong").click()
    for z, hot, cold in ((0, (13, 0), (13, 9)), (1, (13, 9), (13, 0))):
        _show(driver, str(z))
        img = _shot(driver)
        assert not _close(img[_centre(driver, *hot)[::-1]], FREE, 10), z
        assert _close(img[_centre(driver, *cold)[::-1]], FREE), z
        assert "history cost " + ("3" if z == 0 else "6") in _hover(driver, *hot)
        assert "history cost" not in _hover(driver, *cold)


@pytest.fixture(scope="module")
def stack_wave(tmp_path_factory):
    """``wavefront --html`` of the two-layer example's net ``clk``, and its levels."""
    from mazeroute.batch_layers import stack_wavefront
    from mazeroute.readers import load_layout

    page = tmp_path_factory.mktemp("wave3d") / "w.html"
    assert main(["wavefront", str(TWO_LAYERS), "--net", "clk", "-o", str(page.with_suffix(
        ".png")), "--html", str(page), "--mode", "sequential", "-q"]) == 0
    lay = load_layout(TWO_LAYERS)
    return page, stack_wavefront(lay, 0, "sequential")[0], lay


@pytest.mark.parametrize("k", [3, 11])
def test_stack_wavefront_slider_on_each_layer(driver, stack_wave, k):
    page, levels, lay = stack_wave
    _open(driver, page)
    driver.find_element(By.ID, "showpath").click()
    _slide_to(driver, k)
    for z, name in enumerate(["M1", "M2"]):
        _show(driver, str(z))
        assert driver.find_element(By.ID, "levelinfo").text == (
            f"level {k} of {int(levels[levels != UNREACHED].max())} · "
            f"{int((levels[z] == k).sum())} cells at this level on {name} · "
            f"{int((levels == k).sum())} on all layers")
        img = _shot(driver)
        front = {(x, y) for y in range(lay.height) for x in range(lay.width)
                 if _close(img[_centre(driver, x, y)[::-1]], FRONT, 6)}
        marks = {(0, 1), (15, 8)}                          # the root and the target
        want = {(int(x), int(y)) for y, x in zip(*np.nonzero(levels[z] == k))} - marks
        assert front - marks == want and want, (z, k)
        for y in range(lay.height):
            for x in range(lay.width):
                got = img[_centre(driver, x, y)[::-1]]
                if lay.blocked[z, y, x]:                   # this layer's blockages only
                    assert _close(got, BLOCKED), (z, x, y)
                elif (x, y) not in marks and int(levels[z, y, x]) > k:
                    assert _close(got, WAVE_FREE) or _close(got, OTHER), (z, x, y)
        assert _hover(driver, 4, 5).startswith(f"x 4, y 5 · {name} · ")
    _show(driver, "-1")
    assert driver.find_element(By.ID, "levelinfo").text.endswith(
        f"{int((levels == k).sum())} cells at this level on all layers")
