"""Build hook: the package's name, and the contract and rules pages as real files in the wheel.

The checkout's folder ``service/`` installs as the import package ``card_referee`` (pyproject.toml's
``package-dir``); its subpackages are listed here from the folder. ``build_py`` copies
``openapi.yaml`` and ``docs/rules/*.md`` into ``card_referee/_bundled/`` of the build
(``service/resources.py`` reads them there first). A checkout without ``docs/rules`` builds
without it. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
PACKAGE = "card_referee"
FOLDER = "service"
PACKAGES = [PACKAGE + name[len(FOLDER):] for name in find_packages(where=str(ROOT), include=[FOLDER, f"{FOLDER}.*"])]


class BuildWithDocuments(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / PACKAGE / "_bundled"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "openapi.yaml", target / "openapi.yaml")  # a copy, never a link
        rules = ROOT / "docs" / "rules"
        if rules.is_dir():
            (target / "rules").mkdir(exist_ok=True)
            for page in sorted(rules.glob("*.md")):
                shutil.copyfile(page, target / "rules" / page.name)


setup(packages=PACKAGES, cmdclass={"build_py": BuildWithDocuments})
