"""The web console (/ui/) driven by Selenium in headless chromium against the
real actionbased that tests/browser/test_ui.sh started (AB_UI_BASE). No mock:
every request goes to that server. Waits are WebDriverWait conditions only.

AB_UI_MODE=plain: the console's HTTP answers, then forms (database, table),
edges inserted one by one and as a batch, a scan with a range paged through
`offset` (and its curl line run by bash), a 400 shown next to its field, the
charts moving after traffic, phone width and keyboard use.
AB_UI_MODE=auth (--auth): the key dialog, an admin key that may do
everything, then a read-only key for which the write forms are disabled.
Screenshots: AB_UI_SCREENS/<mode>-<step>.png.
"""

import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import urllib.request
import urllib.error

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE = os.environ["AB_UI_BASE"]
SCREENS = os.environ["AB_UI_SCREENS"]
SRC = os.environ["AB_UI_SRC"]
MODE = os.environ.get("AB_UI_MODE", "plain")
ADMIN_KEY = os.environ.get("AB_UI_ADMIN_KEY", "")
# Generous: CI machines have 2 slow cores and a sanitizer build.
TIMEOUT = float(os.environ.get("AB_UI_TIMEOUT", "45"))

driver = None
wait = None


def log(msg):
    print(f"[{MODE}] {msg}", flush=True)


def shot(name):
    path = os.path.join(SCREENS, f"{MODE}-{name}.png")
    driver.save_screenshot(path)
    log(f"screenshot {path}")


# ---- plain HTTP against the server ----


def request(method, path, body=None, key=None, headers=None):
    conn = http.client.HTTPConnection(urllib.parse.urlparse(BASE).netloc, timeout=30)
    hdrs = dict(headers or {})
    if body is not None:
        body = json.dumps(body) if not isinstance(body, (str, bytes)) else body
        hdrs["Content-Type"] = "application/json"
    if key:
        hdrs["Authorization"] = f"Bearer {key}"
    conn.request(method, path, body=body, headers=hdrs)
    r = conn.getresponse()
    data = r.read()
    out = (r.status, dict((k.lower(), v) for k, v in r.getheaders()), data)
    conn.close()
    return out


def http_json(method, path, body=None, key=None):
    status, _, data = request(method, path, body, key)
    return status, (json.loads(data) if data else None)


# ---- browser helpers ----


def start_browser():
    global driver, wait
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ["AB_UI_CHROMIUM"]
    profile = tempfile.mkdtemp(prefix="ab-ui-chromium-")
    for a in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--window-size=1280,800",
        f"--user-data-dir={profile}",
    ):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=os.environ["AB_UI_DRIVER"]), options=opts)
    driver.set_page_load_timeout(120)
    wait = WebDriverWait(driver, TIMEOUT, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,))
    viewport(1280, 800)


def viewport(width, height, mobile=False):
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
    )


def el(css):
    return wait.until(EC.presence_of_element_located((By.CSS_SELECTOR, css)))


def visible(css):
    return wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))


def clickable(css):
    return wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, css)))


def button(text, within="body"):
    xp = f"//*[self::button or self::a][normalize-space()='{text}']"
    scope = driver.find_element(By.CSS_SELECTOR, within)
    return wait.until(lambda d: next((b for b in scope.find_elements(By.XPATH, "." + xp) if b.is_displayed()), False))


def until(cond, what):
    try:
        return wait.until(lambda d: cond())
    except TimeoutException:
        raise AssertionError(f"timed out waiting for: {what}") from None


def text_of(css):
    return driver.find_element(By.CSS_SELECTOR, css).text


def type_into(css, text, clear=True):
    e = clickable(css)
    if clear:
        e.clear()
    e.send_keys(text)
    return e


def go(hash_):
    driver.execute_script("location.hash = arguments[0]", hash_)


def load_console():
    driver.get(BASE + "/ui/")
    el("body[data-ready='true']")


def table_column(css, column):
    """Cell texts of one column of the table at css (by header name)."""
    tbl = el(css)
    heads = [th.text for th in tbl.find_elements(By.CSS_SELECTOR, "thead th")]
    i = heads.index(column)
    return [tr.find_elements(By.CSS_SELECTOR, "td")[i].text for tr in tbl.find_elements(By.CSS_SELECTOR, "tbody tr")]


def no_horizontal_overflow(name):
    width = driver.execute_script("return document.documentElement.clientWidth")
    scroll = driver.execute_script("return document.documentElement.scrollWidth")
    assert scroll <= width + 1, f"{name}: the page scrolls sideways at {width}px ({scroll}px wide)"


def console_errors():
    """Severe browser log entries other than the network lines of 4xx answers
    the tests provoke on purpose (chromium logs every 4xx fetch)."""
    bad = []
    for e in driver.get_log("browser"):
        if e["level"] != "SEVERE":
            continue
        if e.get("source") == "network" and re.search(r"status of 4\d\d", e["message"]):
            continue
        bad.append(e)
    return bad


# ---- plain pass ----


def check_http_answers():
    # /ui redirects to /ui/; the page and every asset are served with their type.
    status, hdrs, _ = request("GET", "/ui")
    assert status == 301 and hdrs.get("location") == "/ui/", (status, hdrs)
    status, hdrs, body = request("GET", "/ui/")
    assert status == 200 and hdrs["content-type"].startswith("text/html"), (status, hdrs)
    assert b'type="module"' in body, "the page is ES modules"
    assert not re.search(rb'(src|href)="(https?:)?//', body), "the page loads only its own assets (no CDN)"
    assert "'self'" in hdrs.get("content-security-policy", "")
    etag = hdrs["etag"]
    status, _, _ = request("GET", "/ui/", headers={"If-None-Match": etag})
    assert status == 304, status
    types = {".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}
    xml = open(os.path.join(SRC, "ui.gresource.xml")).read()
    # the console's own resource (the API description rides in another one)
    ui_block = re.search(r'<gresource prefix="/org/actionbase/ui">(.*?)</gresource>', xml, re.S).group(1)
    listed = set(re.findall(r"<file>([^<]+)</file>", ui_block))
    mk = open(os.path.join(SRC, "local.mk")).read()
    assets = {f for f in os.listdir(SRC) if f not in ("local.mk", "ui.gresource.xml")}
    assert assets == listed, f"src/ui files and ui.gresource.xml differ: {assets ^ listed}"
    for name in sorted(assets):
        assert f"src/ui/{name}" in mk, f"{name} is not in UI_ASSETS (src/ui/local.mk)"
        status, hdrs, body = request("GET", f"/ui/{name}")
        assert status == 200, (name, status)
        assert hdrs["content-type"].startswith(types[os.path.splitext(name)[1]]), (name, hdrs["content-type"])
        assert body == open(os.path.join(SRC, name), "rb").read(), f"/ui/{name} differs from src/ui/{name}"
    # An unknown asset is the project's JSON error.
    status, hdrs, body = request("GET", "/ui/nope.js")
    err = json.loads(body)
    assert status == 404 and set(err) == {"timestamp", "status", "error", "message"}, (status, err)
    assert err["status"] == 404 and "nope.js" in err["message"], err
    log("HTTP answers of /ui ok")


def check_first_load():
    load_console()
    until(lambda: "actionbase-c" in text_of("#server-version"), "the server version in the header")
    until(lambda: text_of("#health").startswith("UP"), "health UP")
    assert driver.find_element(By.ID, "tab-browse").get_attribute("aria-current") == "page"
    shot("01-browse-empty")


def create_database_with_forms():
    clickable("#new-database").click()
    # A name the server refuses: its 400 message appears next to the name field.
    type_into("#db-name", "9lives")
    type_into("#db-comment", "from the browser")
    clickable("#db-create").click()
    err = visible("#db-name-err")
    until(lambda: "Invalid database name" in err.text, "the 400 message next to the name field")
    assert "400" in err.text, err.text
    assert driver.find_element(By.ID, "db-name").get_attribute("aria-invalid") == "true"
    shot("02-database-400")
    # The keyboard: Enter in the field submits the form.
    type_into("#db-name", "social").send_keys(Keys.ENTER)
    until(lambda: driver.execute_script("return location.hash") == "#browse/social", "the new database's page")
    until(lambda: text_of("#h-detail") == "Database social", "the database heading")
    until(lambda: "social" in [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#database-list a")], "social in the list")
    log("database created through the form")


def create_table_with_forms():
    clickable("#new-table").click()
    type_into("#tbl-name", "follows")
    assert driver.find_element(By.ID, "tbl-storage").get_attribute("value") == "datastore://social/follows"
    type_into("#tbl-comment", "who follows whom")
    Select(el("#tbl-direction")).select_by_value("BOTH")
    button("Add property", "#table-form").click()
    type_into("#table-form .prop-name", "created_at")
    Select(el("#table-form .prop-type")).select_by_value("long")
    el("#table-form .prop-nullable").click()
    button("Add property", "#table-form").click()
    names = driver.find_elements(By.CSS_SELECTOR, "#table-form .prop-name")
    names[1].send_keys("note")
    button("Add index", "#table-form").click()
    type_into("#table-form .index-name", "created_at_desc")
    type_into("#table-form .index-fields", "created_at DESC")
    button("Add cache", "#table-form").click()
    type_into("#table-form .cache-name", "recent")
    type_into("#table-form .cache-fields", "created_at DESC")
    # An index on a field the table does not have: 400 next to Indexes.
    type_into("#table-form .index-fields", "when DESC")
    clickable("#tbl-create").click()
    until(lambda: "unknown field 'when'" in " ".join(e.text for e in driver.find_elements(By.CSS_SELECTOR, "#table-form .field-error")), "the index error")
    shot("03-table-400")
    type_into("#table-form .index-fields", "created_at DESC")
    clickable("#tbl-create").click()
    until(lambda: driver.execute_script("return location.hash") == "#browse/social/table/follows", "the table page")
    until(lambda: text_of("#h-detail") == "Table social.follows", "the table heading")
    assert "created_at_desc" in text_of("section[aria-labelledby='h-indexes']")
    assert "recent" in text_of("section[aria-labelledby='h-caches']")
    assert "BOTH" in text_of("dl.props")
    props = table_column("section[aria-labelledby='h-props'] table", "name")
    assert props == ["created_at", "note"], props
    shot("04-table")
    log("table created through the form")


def insert_edges():
    button("Mutate", "#browse-detail").click()
    el("#mutate-form")
    type_into("#m-version", "1")
    type_into("#m-source", "alice")
    type_into("#m-target", "bob")
    type_into("#m-prop-created_at", "1")
    clickable("#m-send").click()
    until(lambda: table_column("#mutate-result table.statuses", "status") == ["CREATED"], "CREATED for one edge")
    # A batch of seven more, pasted as JSON.
    el("#m-kind-batch").click()
    batch = {
        "mutations": [
            {"type": "INSERT", "edge": {"version": n, "source": "alice", "target": f"u{n}", "properties": {"created_at": n}}}
            for n in range(2, 9)
        ]
    }
    box = clickable("#m-batch")
    box.clear()
    box.send_keys(json.dumps(batch))
    clickable("#m-send").click()
    until(lambda: table_column("#mutate-result table.statuses", "status") == ["CREATED"] * 7, "7 CREATED")
    assert "7 CREATED" in text_of("#mutate-result .result-status")
    # A malformed item: the server's 400 is shown with nothing applied.
    box.clear()
    box.send_keys('{"mutations": [{"type": "UPSERT", "edge": {"version": 9, "source": "a", "target": "b"}}]}')
    clickable("#m-send").click()
    until(lambda: "type must be INSERT, UPDATE or DELETE" in text_of("#mutate-form"), "the mutation 400")
    shot("05-mutate")
    log("edges inserted: one from the form, seven as a batch")


def scan_with_range_and_pages():
    go("#browse/social/table/follows")
    until(lambda: text_of("#h-detail") == "Table social.follows", "the table page")
    button("Query", "#browse-detail").click()
    until(lambda: [o.text for o in el("#q-index").find_elements(By.TAG_NAME, "option")] == ["created_at_desc"], "the index choice")
    type_into("#q-start", "alice")
    Select(el("#q-direction")).select_by_value("OUT")
    type_into("#q-limit", "3")
    clickable("#q-add-range").click()
    Select(el("#q-ranges .cond-field")).select_by_value("created_at")
    Select(el("#q-ranges .cond-op")).select_by_value("gte")
    type_into("#q-ranges .cond-value", "3")
    clickable("#q-run").click()
    until(lambda: table_column("#query-result table.edges", "target") == ["u8", "u7", "u6"], "page 1")
    assert text_of("#q-page") == "page 1"
    curl = text_of("#query-result .curl-line")
    want = (
        f"curl -X GET '{BASE}/graph/v3/databases/social/tables/follows/edges/scan/created_at_desc"
        "?start=alice&direction=OUT&limit=3&ranges=created_at:gte:3'"
    )
    assert curl.startswith(want), curl
    # The curl line is exactly what the page sent: bash runs it, same edges.
    env = dict(os.environ, AB_API_KEY=current_key or "")
    out = subprocess.run(["bash", "-c", curl + " -s"], capture_output=True, text=True, env=env, timeout=60)
    got = [e["target"] for e in json.loads(out.stdout)["edges"]]
    assert got == ["u8", "u7", "u6"], (curl, out.stdout)
    shot("06-scan-page1")
    clickable("#q-next").click()
    until(lambda: table_column("#query-result table.edges", "target") == ["u5", "u4", "u3"], "page 2")
    assert text_of("#q-page") == "page 2"
    assert "&offset=" in text_of("#query-result .curl-line")
    assert not el("#q-next").is_enabled(), "no page after the last one"
    shot("07-scan-page2")
    clickable("#q-prev").click()
    until(lambda: table_column("#query-result table.edges", "target") == ["u8", "u7", "u6"], "back on page 1")
    # A 400 from the server: its message next to the limit field.
    type_into("#q-limit", "0")
    clickable("#q-run").click()
    err = visible("#q-limit-err")
    until(lambda: "limit must be between 1 and 1000" in err.text, "the 400 message next to the limit")
    shot("08-scan-400")
    type_into("#q-limit", "3")
    # count, through the same panel
    Select(el("#q-op")).select_by_value("count")
    type_into("#q-start", "alice")
    clickable("#q-run").click()
    until(lambda: table_column("#query-result table", "count") == ["8"], "count 8")
    log("scan with a range paged through offset; count")


def charts_follow_traffic(db, table):
    clickable("#tab-watch").click()
    until(lambda: int(el("#watch-status").get_attribute("data-samples") or 0) >= 2, "two samples of /metrics")
    before = int(el("#watch-status").get_attribute("data-samples"))
    route = "/graph/v3/databases/{database}/tables/{table}/edges/count"

    def traffic(n):
        for _ in range(n):
            status, _ = http_json("GET", f"/graph/v3/databases/{db}/tables/{table}/edges/count?start=alice&direction=OUT", key=current_key)
            assert status == 200, status
        return True

    traffic(100)

    def legend(chart):
        # one script: the legend is redrawn every poll, element handles go stale
        return driver.execute_script(
            "return [...document.querySelectorAll(arguments[0] + ' .legend li')]"
            ".map(li => [li.dataset.series, li.dataset.value, li.dataset.max])",
            chart,
        )

    def peak(chart, series):
        return max([float(m) for s, _, m in legend(chart) if s == series and m] or [0.0])

    try:
        # 100 requests at once: well above the odd single count of the panel.
        # More traffic while waiting, so that a slow machine's scrape timing
        # cannot hide it.
        until(lambda: peak("#chart-requests", route) > 3 or (traffic(20) and False), "the count route on the requests chart")
    except AssertionError:
        _, _, text = request("GET", "/metrics", key=current_key)
        lines = [ln for ln in text.decode().splitlines() if ln.startswith("actionbase_http_requests_total")]
        raise AssertionError(f"the count route is not on the requests chart: {legend('#chart-requests')}; /metrics: {lines}") from None
    assert peak("#chart-requests", "total") >= peak("#chart-requests", route)
    assert int(el("#watch-status").get_attribute("data-samples")) > before
    assert driver.find_elements(By.CSS_SELECTOR, f"#chart-requests path[data-series='{route}']"), "a line for the route"
    until(lambda: peak("#chart-latency", "p99") > 0, "a p99 value")
    shot("09-watch")
    log("charts updated after traffic")


def phone_width():
    viewport(390, 844, mobile=True)
    for name, hash_ in (("browse", "#browse/social/table/follows"), ("query", "#query/social/follows"), ("mutate", "#mutate/social/follows"), ("watch", "#watch")):
        go(hash_)
        until(lambda: driver.find_element(By.ID, f"view-{name}").is_displayed(), f"the {name} view")
        if name == "browse":
            until(lambda: text_of("#h-detail") == "Table social.follows", "the table page")
        no_horizontal_overflow(name)
        shot(f"10-phone-{name}")
    viewport(1280, 800)
    log("usable at 390px")


def keyboard():
    load_console()
    # From a fresh page the first Tab reaches the skip link, the next ones the
    # header's links; Enter follows one.
    ActionChains(driver).send_keys(Keys.TAB).perform()
    assert driver.switch_to.active_element.text == "Skip to content"
    seen = []
    for _ in range(12):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        seen.append(driver.switch_to.active_element.get_attribute("id"))
        if seen[-1] == "tab-query":
            break
    assert "tab-query" in seen, seen
    focus = driver.execute_script("return getComputedStyle(document.activeElement).outlineStyle")
    assert focus != "none", "the focused link shows its focus"
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    until(lambda: driver.find_element(By.ID, "view-query").is_displayed(), "Enter on the Query tab")
    log("keyboard navigation ok")


# ---- auth pass ----

current_key = None


def set_key(key):
    global current_key
    if not driver.find_element(By.ID, "key-dialog").is_displayed():
        clickable("#key-button").click()
    visible("#key-dialog")
    type_into("#key-input", key)
    clickable("#key-use").click()
    until(lambda: not driver.find_element(By.ID, "key-dialog").is_displayed(), "the key dialog to close")
    current_key = key


def auth_flow():
    global current_key
    load_console()
    # The page itself is public; the API answers 401 without a key, so the
    # page asks for one.
    visible("#key-dialog")
    shot("01-key-dialog")
    type_into("#key-input", "ab_" + "0" * 64)
    clickable("#key-use").click()
    until(lambda: "not valid" in text_of("#key-error"), "the 401 message in the dialog")
    set_key(ADMIN_KEY)
    assert text_of("#key-button") == "API key: set"
    stored = driver.execute_script("return [sessionStorage.getItem('actionbase.apiKey'), localStorage.length, document.cookie]")
    assert stored == [ADMIN_KEY, 0, ""], stored

    # The admin key may do everything: the forms are enabled and work.
    go("#browse")
    until(lambda: el("#new-database").get_attribute("data-permission") == "allowed", "New database allowed")
    clickable("#new-database").click()
    type_into("#db-name", "shop")
    type_into("#db-comment", "")
    clickable("#db-create").click()
    until(lambda: text_of("#h-detail") == "Database shop", "the database page")
    status, _ = http_json(
        "POST",
        "/graph/v3/databases/shop/tables",
        {
            "table": "orders",
            "comment": "",
            "storage": "datastore://shop/orders",
            "schema": {
                "type": "EDGE",
                "source": {"type": "string", "comment": ""},
                "target": {"type": "string", "comment": ""},
                "direction": "OUT",
                "properties": [{"name": "amount", "type": "int", "nullable": False, "comment": ""}],
                "indexes": [{"index": "by_amount", "fields": [{"field": "amount", "order": "DESC"}]}],
            },
        },
        key=ADMIN_KEY,
    )
    assert status == 200, status
    go("#mutate/shop/orders")
    until(lambda: el("#m-send").is_enabled(), "Send enabled for the admin")
    type_into("#m-source", "alice")
    type_into("#m-target", "phone")
    type_into("#m-prop-amount", "2")
    clickable("#m-send").click()
    until(lambda: table_column("#mutate-result table.statuses", "status") == ["CREATED"], "CREATED with the admin key")
    assert "$AB_API_KEY" in text_of("#mutate-result .curl-line")
    shot("02-admin-mutate")

    # A key that may only read: what it may not do is shown disabled.
    status, made = http_json("POST", "/admin/v1/keys", {"name": "ui-reader", "grants": [{"scope": "*", "permissions": "r"}]}, key=ADMIN_KEY)
    assert status == 200, (status, made)
    set_key(made["key"])
    go("#browse/shop")
    until(lambda: text_of("#h-detail") == "Database shop", "the database page for the reader")
    for css in ("#new-database", "#new-table", "#new-alias", "#new-queue"):
        until(lambda: el(css).get_attribute("data-permission") == "denied", f"{css} denied")
        b = el(css)
        assert b.is_displayed() and not b.is_enabled(), css
    notes = [n.text for n in driver.find_elements(By.CSS_SELECTOR, ".perm-note") if n.is_displayed()]
    assert any("needs 'c'" in n for n in notes), notes
    shot("03-reader-browse")
    go("#mutate/shop/orders")
    until(lambda: el("#mutate-form fieldset").get_attribute("data-permission") == "denied", "the mutation form denied")
    assert el("#m-send").is_displayed() and not el("#m-send").is_enabled()
    assert "needs 'w' on shop.orders" in text_of("#view-mutate")
    shot("04-reader-mutate")
    # Reading works, with the key on every call.
    go("#query/shop/orders")
    until(lambda: [o.text for o in el("#q-index").find_elements(By.TAG_NAME, "option")] == ["by_amount"], "the index choice")
    type_into("#q-start", "alice")
    clickable("#q-run").click()
    until(lambda: table_column("#query-result table.edges", "target") == ["phone"], "the reader's scan")
    curl = text_of("#query-result .curl-line")
    assert '-H "Authorization: Bearer $AB_API_KEY"' in curl, curl
    out = subprocess.run(["bash", "-c", curl + " -s"], capture_output=True, text=True, env=dict(os.environ, AB_API_KEY=current_key), timeout=60)
    assert json.loads(out.stdout)["edges"][0]["target"] == "phone", out.stdout
    charts_follow_traffic("shop", "orders")
    # The key stays for the tab (session storage) across a reload.
    load_console()
    assert not driver.find_element(By.ID, "key-dialog").is_displayed()
    assert text_of("#key-button") == "API key: set"
    shot("05-reader-reload")
    log("auth: dialog, admin key, read-only key shown disabled")


def main():
    global current_key
    os.makedirs(SCREENS, exist_ok=True)
    start_browser()
    failed = False
    try:
        if MODE == "auth":
            assert ADMIN_KEY, "AB_UI_ADMIN_KEY is empty"
            status, _, _ = request("GET", "/ui/")
            assert status == 200, "the page is public under --auth"
            auth_flow()
        else:
            check_http_answers()
            check_first_load()
            create_database_with_forms()
            create_table_with_forms()
            insert_edges()
            scan_with_range_and_pages()
            charts_follow_traffic("social", "follows")
            phone_width()
            keyboard()
        errors = console_errors()
        assert not errors, f"console errors: {errors}"
        assert not driver.find_element(By.ID, "banner").is_displayed(), text_of("#banner")
        log("PASS")
    except Exception:
        failed = True
        traceback.print_exc()
        try:
            shot("FAILED")
            with open(os.path.join(SCREENS, f"{MODE}-FAILED.html"), "w") as f:
                f.write(driver.page_source)
            for e in driver.get_log("browser"):
                print("browser:", e, file=sys.stderr)
        except Exception:
            traceback.print_exc()
    finally:
        driver.quit()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
