#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Load HTML files in headless Chromium and report what it saw, as JSON.

Drives Chromium through the DevTools protocol over --remote-debugging-pipe
(file descriptors 3 and 4, messages ended by a NUL byte), so that nothing
but the Python standard library and Debian's chromium is needed.  For each
file it reports:

  charts     every <svg class="chart KIND">: its kind, its size on the page,
             how many ".mark" elements it holds, how many of those have a
             box of their own and lie inside the chart
  console    console messages, uncaught exceptions and browser log entries
             (errors, warnings: a bad SVG attribute is logged there)
  requests   every request the page made other than the file itself
  scripts, externals   <script> elements, and elements that point outside
             the file (src, href of stylesheets, @import)
  scriptAsText   elements whose own text holds "<script" (escaped markup)
  shots      one PNG per chart kind (the first chart of that kind), written
             into --out as PREFIX-KIND.png
  pdf        the page printed to PDF with its print stylesheet: pages, bytes

Usage: browser.py --out DIR [--chromium PATH] FILE[:PREFIX]...
Exit status: 0 with the JSON on stdout; 1 when the browser could not be
driven (the reason on stderr).
"""

import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
    # Nothing on this page may reach the network: send every request to a
    # resolver that finds nothing, and count any that was attempted.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--remote-debugging-pipe",
]

# What the page is asked, once it has loaded.
PROBE = r"""
(() => {
  const inside = (r, o) => r.width > 0 && r.height > 0 &&
    r.left >= o.left - 1 && r.right <= o.right + 1 &&
    r.top >= o.top - 1 && r.bottom <= o.bottom + 1;
  const charts = [...document.querySelectorAll('svg.chart')].map((s, i) => {
    const o = s.getBoundingClientRect();
    const marks = [...s.querySelectorAll('.mark')];
    const boxes = marks.map(m => m.getBoundingClientRect());
    const kind = [...s.classList].find(c => c !== 'chart') || '';
    return {
      index: i, kind, width: o.width, height: o.height,
      x: o.left + window.scrollX, y: o.top + window.scrollY,
      marks: marks.length,
      visible: boxes.filter(r => r.width > 0 && r.height > 0).length,
      inside: boxes.filter(r => inside(r, o)).length,
      texts: s.querySelectorAll('text').length,
      title: (s.querySelector('title') || {}).textContent || '',
    };
  });
  const ext = [];
  for (const e of document.querySelectorAll('[src],[href],[srcset]')) {
    const u = e.getAttribute('src') || e.getAttribute('href') ||
      e.getAttribute('srcset') || '';
    if (!/^(#|data:)/.test(u)) ext.push(e.tagName + ' ' + u);
  }
  for (const s of document.querySelectorAll('style'))
    if (/@import|url\(\s*['"]?(?!data:|#)/.test(s.textContent))
      ext.push('style ' + s.textContent.slice(0, 80));
  return JSON.stringify({
    title: document.title,
    charts,
    scripts: document.querySelectorAll('script').length,
    // Elements whose text holds "<script": markup that arrived as text.
    scriptAsText: [...document.querySelectorAll('text,title,td,th,p,li,code,caption,h1,h2,h3,pre,span')]
      .filter(e => e.children.length === 0 &&
        e.textContent.includes('<script')).length,
    externals: ext,
    tables: document.querySelectorAll('table').length,
    printCss: [...document.styleSheets].some(ss => {
      try {
        return [...ss.cssRules].some(r => r.media &&
          [...r.media].includes('print'));
      } catch (e) { return false; }
    }),
    height: document.documentElement.scrollHeight,
  });
})()
"""


class Browser:
    """One Chromium process and one page, driven over the pipe."""

    def __init__(self, exe, timeout):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="ipcperf-chromium.")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe, *FLAGS, "--user-data-dir=" + self.profile, "about:blank"],
            preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            start_new_session=True)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            if self.proc.poll() is None:
                try:
                    self.call("Browser.close", timeout=5)
                except Exception:
                    pass
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    os.killpg(self.proc.pid, 9)
                    self.proc.wait()
        finally:
            for fd in (self.to_chrome, self.from_chrome):
                try:
                    os.close(fd)
                except OSError:
                    pass
            shutil.rmtree(self.profile, ignore_errors=True)

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            r, _, _ = select.select([self.from_chrome], [], [], left)
            if not r:
                continue
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                err = self.proc.stderr.read().decode(errors="replace")
                raise RuntimeError("chromium ended: " + err[-400:])
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(method + ": " + json.dumps(m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, method, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def open_page(self):
        t = self.call("Target.createTarget", {"url": "about:blank"},
                      session=False)
        s = self.call("Target.attachToTarget",
                      {"targetId": t["targetId"], "flatten": True},
                      session=False)
        self.session = s["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1,
                   "mobile": False})


def messages(events, page_url):
    """Console output, exceptions, log entries and outside requests."""
    console, requests = [], []
    for e in events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", "")))
                            for a in p.get("args", []))
            console.append({"level": p.get("type"), "text": text})
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            console.append({"level": "exception",
                            "text": d.get("text", "") + " " +
                            str(d.get("exception", {}).get("description", ""))})
        elif m == "Log.entryAdded":
            en = p.get("entry", {})
            if en.get("level") in ("error", "warning"):
                console.append({"level": en.get("level"),
                                "text": en.get("text", "")})
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if url != page_url and not url.startswith("data:"):
                requests.append(url)
    return console, requests


def load(b, path, prefix, out):
    url = "file://" + os.path.abspath(path)
    b.events.clear()
    b.call("Page.navigate", {"url": url})
    b.wait_event("Page.loadEventFired")
    # Let late console messages and the layout settle.
    b.call("Runtime.evaluate", {"expression": "1", "awaitPromise": True})
    r = b.call("Runtime.evaluate", {"expression": PROBE,
                                    "returnByValue": True})
    probe = json.loads(r["result"]["value"])
    shots = {}
    for c in probe["charts"]:
        if c["kind"] in shots or c["width"] <= 0 or c["height"] <= 0:
            continue
        img = b.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": c["x"], "y": c["y"], "width": c["width"],
                     "height": c["height"], "scale": 1}})
        name = os.path.join(out, "%s-%s.png" % (prefix, c["kind"]))
        with open(name, "wb") as f:
            f.write(base64.b64decode(img["data"]))
        shots[c["kind"]] = name
    pdf = b.call("Page.printToPDF", {"printBackground": True},
                 timeout=60)
    data = base64.b64decode(pdf["data"])
    with open(os.path.join(out, prefix + ".pdf"), "wb") as f:
        f.write(data)
    console, requests = messages(b.events, url)
    probe.update({
        "file": path, "shots": shots, "console": console,
        "requests": requests,
        "pdf": {"bytes": len(data),
                "pages": data.count(b"/Type /Page") -
                data.count(b"/Type /Pages")},
    })
    return probe


def main(argv):
    out, exe, files, timeout = None, shutil.which("chromium"), [], 30
    args = iter(argv)
    for a in args:
        if a == "--out":
            out = next(args)
        elif a == "--chromium":
            exe = next(args)
        else:
            files.append(a)
    if not out or not files or not exe:
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 1
    os.makedirs(out, exist_ok=True)
    b = Browser(exe, timeout)
    result = []
    try:
        b.open_page()
        for f in files:
            path, _, prefix = f.partition(":")
            prefix = prefix or os.path.splitext(os.path.basename(path))[0]
            result.append(load(b, path, prefix, out))
    except Exception as e:  # any failure: say what, exit 1
        print("browser.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 1
    finally:
        b.close()
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
