#!/usr/bin/python3
"""Open vigil's live view in headless Chromium and report what it shows.

usage: view_browser.py URL OUT.json [--changing | --final] [--shot PNG]

Drives Chromium through its DevTools protocol (Debian's python3-websocket):
loads the page and waits until a frame and the picture have arrived (the
picture is drawn with the frame's counts); with --changing, until
the page's event count has changed while it watched; with --final, until
the phase is no longer "running". Then writes the page's state-count and
edge-count elements, phase and violations as JSON for tests/e2e/view.sh to
check against vigil's own stats, and a screenshot with --shot. Exits 1
with a reason when the page does not get there within 60 s.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket

READ_PAGE = r"""
(() => {
  const ph = document.getElementById("phase");
  const num = (id) => { const e = document.getElementById(id); return e ? Number(e.textContent) : null; };
  const counts = [], fired = [];
  for (let s = 0; document.getElementById("count-p0-s" + s); s++) counts.push(num("count-p0-s" + s));
  for (let t = 0; document.getElementById("fired-p0-t" + t); t++) fired.push(num("fired-p0-t" + t));
  const nodes = [...document.querySelectorAll("#graph g.node")].map((g) =>
    [g.id, [...g.querySelectorAll("text")].map((t) => t.textContent)]);
  return JSON.stringify({
    phase: ph.dataset.phase, phase_text: ph.textContent,
    events: num("events"), seq: num("seq"), counts, fired, nodes,
    violations: [...document.querySelectorAll("#violations li.violation .ev")].map((e) => e.textContent),
    fired_edges: [...document.querySelectorAll("#graph g.edge.fired")].map((g) => g.id),
  });
})()
"""


def main():
    url, out = sys.argv[1], sys.argv[2]
    shot = sys.argv[sys.argv.index("--shot") + 1] if "--shot" in sys.argv else None
    want_final = "--final" in sys.argv
    want_change = "--changing" in sys.argv
    profile = tempfile.mkdtemp(prefix="vigil-chromium.")
    chrome = subprocess.Popen(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync",
         "--remote-debugging-port=0", "--remote-allow-origins=*",
         "--window-size=1280,760", "--user-data-dir=" + profile, "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 60
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if time.time() > deadline or chrome.poll() is not None:
                sys.exit("view_browser: Chromium did not start its DevTools port")
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        pages = json.load(urllib.request.urlopen("http://127.0.0.1:%s/json/list" % port))
        ws = websocket.create_connection(
            [p for p in pages if p["type"] == "page"][0]["webSocketDebuggerUrl"], timeout=60)
        ids = iter(range(1, 1 << 30))

        def call(method, **params):
            n = next(ids)
            ws.send(json.dumps({"id": n, "method": method, "params": params}))
            while True:
                m = json.loads(ws.recv())
                if m.get("id") == n:
                    if "error" in m:
                        sys.exit("view_browser: %s: %s" % (method, m["error"]))
                    return m["result"]

        call("Page.navigate", url=url)
        seen = first = None
        while time.time() < deadline:
            r = call("Runtime.evaluate", expression=READ_PAGE, returnByValue=True)
            v = r.get("result", {}).get("value")
            if v:
                seen = json.loads(v)
                if seen["seq"] and first is None:
                    first = seen
                # the picture is fetched beside the stream: wait for both
                if (seen["seq"] and seen["nodes"] and
                        (not want_final or seen["phase"] not in ("running", "connecting")) and
                        (not want_change or seen["events"] != first["events"])):
                    seen["first_events"] = first["events"]
                    break
            time.sleep(0.1)
        else:
            sys.exit("view_browser: the page did not get its frames in 60 s: %s" % seen)
        if shot:
            time.sleep(0.3)  # let the last frame's drawing settle
            png = call("Page.captureScreenshot", format="png")["data"]
            with open(shot, "wb") as f:
                f.write(base64.b64decode(png))
        with open(out, "w") as f:
            json.dump(seen, f)
    finally:
        chrome.kill()
        chrome.wait()
        subprocess.run(["rm", "-rf", profile])


if __name__ == "__main__":
    main()
