"""A real headless Chromium (Debian's `chromium`) driven over the DevTools protocol, for tests and samples.

One browser process serves many pages (`Chromium.open`): each page is loaded from a file, and what a
person would see is read back: console errors and uncaught exceptions, every request it made (a
self-contained page makes none but its own file and `data:` images), the images as decoded, the page's
width laid out for print, a PDF printed on a given paper size, and a screenshot. The protocol is spoken
with websocket-client (one socket, sessions flattened onto it), so no driver binary is needed.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import websocket

LOAD_TIMEOUT = 60.0


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass
class Page:
    session: str
    errors: list[str] = field(default_factory=list)     # console errors, exceptions, failed loads
    requests: list[str] = field(default_factory=list)   # every URL the page asked for


class Chromium:
    def __init__(self):
        binary = chromium_binary()
        if binary is None:
            raise RuntimeError("no chromium on PATH (apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="budgetbook-chromium-")
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
             "--disable-extensions", "--disable-background-networking", "--remote-debugging-port=0",
             f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = None
        deadline = time.monotonic() + LOAD_TIMEOUT
        assert self.process.stderr is not None
        while url is None and time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                raise RuntimeError("chromium exited before it listened")
            found = re.search(r"DevTools listening on (ws://\S+)", line)
            url = found.group(1) if found else None
        if url is None:
            self.close()
            raise RuntimeError("chromium did not say where it listens")
        self.socket = websocket.create_connection(url, timeout=LOAD_TIMEOUT, suppress_origin=True)
        self.next_id = 0
        self.pages: dict[str, Page] = {}

    # ------------------------------------------------------------ the protocol
    def send(self, method: str, session: str | None = None, **params) -> dict:
        self.next_id += 1
        message: dict = {"id": self.next_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        while True:
            reply = self._receive()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _receive(self) -> dict:
        reply = json.loads(self.socket.recv())
        page = self.pages.get(reply.get("sessionId", ""))
        if page is not None and "method" in reply:
            self._event(page, reply["method"], reply.get("params", {}))
        return reply

    def _event(self, page: Page, method: str, params: dict) -> None:
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            page.errors.append("console: " + " ".join(str(a.get("value", a.get("description")))
                                                      for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            page.errors.append("exception: " + params["exceptionDetails"].get("text", ""))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            page.errors.append("log: " + params["entry"].get("text", ""))
        elif method == "Network.requestWillBeSent":
            page.requests.append(params["request"]["url"])
        elif method == "Network.loadingFailed":
            page.errors.append("load failed: " + params.get("errorText", ""))

    # ------------------------------------------------------------ pages
    def open(self, path: Path, width: int = 1000, height: int = 1400) -> Page:
        """`path` loaded in a fresh tab at `width` x `height` CSS pixels, until its load event."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(session)
        self.pages[session] = page
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.send(f"{domain}.enable", session)
        self.send("Emulation.setDeviceMetricsOverride", session, width=width, height=height, deviceScaleFactor=1,
                  mobile=False)
        self.send("Page.navigate", session, url=path.resolve().as_uri())
        deadline = time.monotonic() + LOAD_TIMEOUT
        while time.monotonic() < deadline:
            reply = self._receive()
            if reply.get("method") == "Page.loadEventFired" and reply.get("sessionId") == session:
                break
        else:
            raise RuntimeError(f"{path}: no load event in {LOAD_TIMEOUT:.0f} s")
        self.evaluate(page, "document.fonts.ready.then(() => true)")
        return page

    def evaluate(self, page: Page, expression: str):
        result = self.send("Runtime.evaluate", page.session, expression=expression, awaitPromise=True,
                           returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def images(self, page: Page) -> list[dict]:
        """Each <img>: its alt, whether it decoded, its natural and laid-out width."""
        return self.evaluate(page, "[...document.images].map(i => ({alt: i.alt, complete: i.complete, "
                                   "natural: i.naturalWidth, width: i.getBoundingClientRect().width, "
                                   "src: i.src.slice(0, 26)}))")

    def print_width(self, page: Page, width_px: int) -> int:
        """The page's laid-out width in print media at `width_px` (the paper inside its margins)."""
        self.send("Emulation.setEmulatedMedia", page.session, media="print")
        self.send("Emulation.setDeviceMetricsOverride", page.session, width=width_px, height=1000,
                  deviceScaleFactor=1, mobile=False)
        width = self.evaluate(page, "document.documentElement.scrollWidth")
        self.send("Emulation.setEmulatedMedia", page.session, media="")
        return width

    def pdf(self, page: Page, width_in: float, height_in: float) -> bytes:
        """The page printed on paper of `width_in` x `height_in` inches, its own CSS margins."""
        data = self.send("Page.printToPDF", page.session, paperWidth=width_in, paperHeight=height_in,
                         preferCSSPageSize=False, printBackground=True, marginTop=0, marginBottom=0, marginLeft=0,
                         marginRight=0)["data"]
        return base64.b64decode(data)

    def screenshot(self, page: Page) -> bytes:
        """A PNG of the whole page, as laid out on screen."""
        return base64.b64decode(self.send("Page.captureScreenshot", page.session, format="png",
                                          captureBeyondViewport=True)["data"])

    def close(self) -> None:
        try:
            if getattr(self, "socket", None) is not None:
                self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)
