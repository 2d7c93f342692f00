"""The app in a real headless Chromium (Playwright driving Debian's /usr/bin/chromium).

Skipped when chromium or playwright is missing, except in CI (CI=1), where that is a failure.
The screenshot is saved as test-artifacts/app-browser.png (git-ignored).
"""

import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CODESCORE_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def _require_browser():
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append(f"{CHROMIUM} (apt-get install -y chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install playwright, no browser download needed)")
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"browser test needs {', '.join(missing)}")
        pytest.skip(f"browser test needs {', '.join(missing)}")


@pytest.fixture(scope="module")
def app_url(tiny_model_dir):
    _require_browser()
    import app
    from codescore_metric import CodeScorer

    demo = app.build_demo(CodeScorer(checkpoint=tiny_model_dir))
    _, url, _ = demo.launch(server_name="127.0.0.1", prevent_thread_lock=True, quiet=True)
    try:
        yield url
    finally:
        demo.close()


def _number(page, label):
    return float(page.get_by_label(label, exact=True).input_value())


def test_type_pick_format_click_and_read_scores(app_url, tiny_model_dir):
    from playwright.sync_api import expect, sync_playwright

    from codescore_metric import CodeScorer, results

    generated = "def add(a, b):\n    return a - b\n"
    reference = "def add(a, b):\n    return a + b\n"
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(app_url, wait_until="networkidle")
            editors = page.locator(".cm-content")  # CodeMirror editors: generated, then reference
            expect(editors).to_have_count(2)
            # insert_text pastes verbatim (typing key by key would trigger auto-indent)
            for editor, code in ((editors.nth(0), generated), (editors.nth(1), reference)):
                editor.click()
                page.keyboard.insert_text(code)
            page.get_by_label("Ref-only", exact=True).check()
            page.get_by_role("button", name="Score", exact=True).click()
            reading = page.locator("#reading textarea")
            expect(reading).to_have_value(re.compile("not executed"), timeout=30_000)
            shown = {name: _number(page, name) for name in ("CodeScore", "Executability", "Passability", "BLEU", "CodeBLEU")}
            page.screenshot(path=str(ARTIFACTS / "app-browser.png"), full_page=True)
        finally:
            browser.close()

    expected = results.score_single(CodeScorer(checkpoint=tiny_model_dir), generated, reference, "", "ref")
    for name, key in (("CodeScore", "codescore"), ("Executability", "executability"), ("Passability", "passability"), ("BLEU", "bleu"), ("CodeBLEU", "codebleu")):
        assert shown[name] == pytest.approx(expected[key], abs=1e-4), name
    assert (ARTIFACTS / "app-browser.png").stat().st_size > 10_000
