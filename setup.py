"""Build hook: the wheel carries the contract and the rules pages as real files.

``build_py`` copies ``openapi.yaml`` and ``docs/rules/*.md`` into ``service/_bundled/`` of the
build (``service/resources.py`` reads them there first). A checkout without ``docs/rules`` builds
without it. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithDocuments(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "service" / "_bundled"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "openapi.yaml", target / "openapi.yaml")  # a copy, never a link
        rules = ROOT / "docs" / "rules"
        if rules.is_dir():
            (target / "rules").mkdir(exist_ok=True)
            for page in sorted(rules.glob("*.md")):
                shutil.copyfile(page, target / "rules" / page.name)


setup(cmdclass={"build_py": BuildWithDocuments})
