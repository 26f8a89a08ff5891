"""Screenshots of the HTML viewer for the README, taken with headless Chromium (offline).

    python docs/screenshots.py [--backend cpu]

Routes ``layouts/large_2048.yaml`` with ``mazeroute route --html``, writes one net's
wavefront page with ``mazeroute wavefront --html``, opens both in Debian's ``chromium``
through ``chromedriver`` (Selenium) and saves ``docs/viewer_*.png``.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import tempfile
import time
from pathlib import Path

from PIL import Image
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from mazeroute.cli import main

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = ROOT / "layouts" / "large_2048.yaml"
SIZE = (1400, 860)


def browser() -> webdriver.Chrome:
    os.environ.setdefault("SE_OFFLINE", "true")
    o = webdriver.ChromeOptions()
    o.binary_location = shutil.which("chromium") or "/usr/lib/chromium/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--force-color-profile=srgb",
              "--force-device-scale-factor=1", f"--window-size={SIZE[0]},{SIZE[1]}",
              "--host-resolver-rules=MAP * ~NOTFOUND"):
        o.add_argument(a)
    d = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=o)
    d.set_window_size(*SIZE)
    return d


def load(d, page: Path) -> None:
    d.get(page.as_uri())
    end = time.monotonic() + 60
    while not d.execute_script("return !!(window.mazeview && window.mazeview.ready)"):
        if time.monotonic() > end:
            raise SystemExit(f"{page}: the page never got ready: {d.get_log('browser')}")
        time.sleep(0.05)
    settle(d)


def settle(d) -> None:
    d.execute_async_script("const done = arguments[0];"
                           "requestAnimationFrame(() => requestAnimationFrame(done));")


def save(d, name: str) -> None:
    img = Image.open(io.BytesIO(d.get_screenshot_as_png())).convert("RGB")
    out = ROOT / "docs" / name
    img.quantize(256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB)")


def run(backend: str) -> None:
    work = Path(tempfile.mkdtemp())
    assert main(["route", str(LAYOUT), "-o", str(work / "out"), "--html", "--no-png", "-q",
                 "--backend", backend]) == 0
    assert main(["wavefront", str(LAYOUT), "--net", "n021", "-o", str(work / "w.png"),
                 "--html", str(work / "wave.html"), "-q", "--backend", backend]) == 0
    d = browser()
    try:
        load(d, work / "out" / "view.html")
        save(d, "viewer_overview.png")
        Select(d.find_element(By.ID, "sort")).select_by_value("length")
        d.find_elements(By.CSS_SELECTOR, "#list .net:not([hidden])")[0].click()
        settle(d)
        save(d, "viewer_net.png")
        load(d, work / "wave.html")
        slider = d.find_element(By.ID, "slider")
        top = int(slider.get_attribute("max"))
        d.execute_script("window.mazeview.level(arguments[0])", int(top * 0.45))
        d.find_element(By.ID, "zin").click()
        slider.send_keys(Keys.RIGHT)
        settle(d)
        save(d, "viewer_wavefront.png")
    finally:
        d.quit()
        shutil.rmtree(work)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="auto")
    run(p.parse_args().backend)
