"""Packaging: one import name, `relucheck`; pyproject lists every package directory of the repository."""
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_directory_is_installed_under_relucheck():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    mapping = cfg["package-dir"]
    found = set()
    for name, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]) if rel.parts else name)
    assert found == listed, f"missing from pyproject: {sorted(found - listed)}; listed but absent: {sorted(listed - found)}"


def test_the_wheel_installs_one_top_level_package(tmp_path):
    """Only `relucheck` (and its dist-info) lands in site-packages: no `theory`, `numerics` or `proofs_checks`."""
    import subprocess
    import sys
    import zipfile

    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("relucheck-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"relucheck"}, sorted(tops)
    assert "relucheck/numerics/flows/engines/logscale.py" in names and "relucheck/py.typed" in names
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[pytest11]" in text and "relucheck.testing.pytest_plugin" in text
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names), names[-8:]


def test_old_top_level_names_are_not_importable_outside_the_repository(tmp_path):
    import subprocess
    import sys

    for name in ("numerics", "theory", "proofs_checks"):
        proc = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 1 and "ModuleNotFoundError" in proc.stderr, (name, proc.stderr[-300:])


def test_version_license_changelog():
    import subprocess
    import sys

    import relucheck

    proc = subprocess.run([sys.executable, "-m", "relucheck", "--version"], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == f"relucheck {relucheck.__version__}"
    assert "MIT License" in (ROOT / "LICENSE").read_text()
    assert f"## {relucheck.__version__}" in (ROOT / "CHANGELOG.md").read_text()
