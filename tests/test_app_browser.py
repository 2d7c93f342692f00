"""The app in a real headless Chromium (Playwright driving Debian's /usr/bin/chromium).

Skipped when chromium or playwright is missing, except in CI (CI=1), where that is a failure.
Each step leaves a screenshot under test-artifacts/ (git-ignored): app-01-start.png ... app-06-bad-file.png.
"""

import json
import os
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("CODESCORE_CHROMIUM", "/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
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
SCORING_TIMEOUT = 60_000  # ms; two CPU cores are shared with other work


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
def scorer(tiny_model_dir):
    from codescore_metric import CodeScorer

    return CodeScorer(checkpoint=tiny_model_dir)


@pytest.fixture(scope="module")
def app_url(scorer):
    _require_browser()
    import app

    demo = app.build_demo(scorer)
    _, url, _ = demo.launch(server_name="127.0.0.1", prevent_thread_lock=True, quiet=True)
    try:
        yield url
    finally:
        demo.close()


@pytest.fixture
def page(app_url):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1200})
            page.goto(app_url, wait_until="networkidle")
            yield page
        finally:
            browser.close()


def _shot(page, name):
    path = ARTIFACTS / f"app-{name}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000


def _bars(page) -> dict:
    """The numbers the score bars show, by metric ('n/a' bars left out)."""
    bars = page.locator("#score-bars .cs-bar[data-value]")
    return {bars.nth(i).get_attribute("data-metric"): float(bars.nth(i).locator(".cs-value").inner_text()) for i in range(bars.count())}


def test_example_is_scored_into_bars_and_a_format_hides_its_unread_field(page, scorer):
    from playwright.sync_api import expect

    import app
    from codescore_metric import results

    expect(page.locator("#score-bars .cs-empty")).to_be_visible()
    expect(page.locator("#score-bars .cs-bar")).to_have_count(0)  # empty, not zeros, before the first run
    _shot(page, "01-start")

    row = next(r for r in app.EXAMPLES if r["label"] == "Subtly wrong: last_n")
    page.get_by_role("button", name=row["label"]).click()
    expect(page.locator("#score-bars .cs-bar[data-value]")).to_have_count(5, timeout=SCORING_TIMEOUT)
    expect(page.locator("#signature textarea")).to_have_value(re.compile(r"^codescore\|"))
    shown, signature = _bars(page), page.locator("#signature textarea").input_value()
    reading = page.locator("#reading textarea").input_value()
    _shot(page, "02-example-scored")
    expected = results.score_single(scorer, row["generated"], row["reference"], row["source"], row["input_format"])
    assert shown == pytest.approx({key: expected[key] for key in shown}, abs=1e-4)
    assert set(shown) == {"codescore", "executability", "passability", "bleu", "codebleu"}
    assert signature == expected["signature"] and reading == expected["reading"]

    formats = page.locator("#input-format")
    formats.get_by_label("Ref-only", exact=True).check()
    expect(page.get_by_label("Task description (NL)")).to_be_hidden()
    expect(page.locator(".cm-content")).to_have_count(2)  # generated and reference code stay
    expect(page.locator("#score-bars .cs-empty")).to_be_visible()  # the Ref&NL scores are gone
    _shot(page, "03-ref-only")

    formats.get_by_label("NL-only", exact=True).check()
    expect(page.locator(".cm-content")).to_have_count(1)  # no reference box
    expect(page.get_by_label("Task description (NL)")).to_be_visible()
    page.locator("#clear-button").click()
    # Clear runs on the server: wait for the emptied boxes, or a loaded CPU lets Score send the old text.
    expect(page.get_by_label("Task description (NL)")).to_have_value("", timeout=SCORING_TIMEOUT)
    expect(page.locator(".cm-content")).to_have_text("", timeout=SCORING_TIMEOUT)
    page.locator("#score-button").click()
    expect(page.get_by_text("NL-only needs: generated code, task description")).to_be_visible(timeout=SCORING_TIMEOUT)
    _shot(page, "04-missing-fields")


def test_labelled_file_gives_table_histogram_and_scatter(page, tmp_path):
    from playwright.sync_api import expect

    import app

    page.get_by_role("tab", name="Score a file").click()
    expect(page.locator("#scatter")).to_be_hidden()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the labelled example file (27 rows)").click()
    assert download.value.suggested_filename == "labelled.jsonl"
    page.locator("#upload input[type=file]").set_input_files(str(app.LABELLED_FILE))
    expect(page.locator("#upload").get_by_role("cell", name="labelled.jsonl")).to_be_visible()
    page.locator("#score-file-button").click()
    expect(page.locator("#scatter img")).to_be_visible(timeout=SCORING_TIMEOUT)
    expect(page.locator("#histogram img")).to_be_visible()
    expect(page.locator("#file-overview")).to_contain_text("Spearman")
    table = page.locator("#scored-rows")
    expect(table).to_contain_text("count_vowels/correct")
    expect(table).to_contain_text("label: pass_ratio")
    _shot(page, "05-file-scored")

    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n" + json.dumps({"generated_code": "def f():\n    return 1\n"}) + "\n", encoding="utf-8")
    page.locator("#upload").get_by_role("button", name="Clear").click()
    page.locator("#upload input[type=file]").set_input_files(str(bad))
    expect(page.locator("#upload").get_by_role("cell", name="bad.jsonl")).to_be_visible()
    page.locator("#score-file-button").click()
    overview = page.locator("#file-overview")
    expect(overview).to_contain_text("nothing was scored", timeout=SCORING_TIMEOUT)
    for problem in ("bad.jsonl:1: not valid JSON", "bad.jsonl:2: missing field 'golden_code'", "bad.jsonl:2: missing field 'source'"):
        expect(overview).to_contain_text(problem)
    expect(page.locator("#scatter")).to_be_hidden()  # the labelled file's results are gone
    expect(table).to_be_hidden()
    expect(page.get_by_text("bad.jsonl: nothing was scored; the problems are listed below.")).to_be_visible()
    _shot(page, "06-bad-file")

    page.get_by_role("button", name="Score the labelled example").click()
    expect(page.locator("#scatter img")).to_be_visible(timeout=SCORING_TIMEOUT)
    expect(page.locator("#upload").get_by_role("cell", name="labelled.jsonl")).to_be_visible()
