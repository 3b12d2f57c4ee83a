import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """trickledger built as a wheel and installed (without its dependencies, which the test
    environment has) into a folder of its own: put it first on PYTHONPATH and run from
    outside the repository to use the installed package, not the checkout."""
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work),
                    str(ROOT)], check=True, capture_output=True)
    wheel = next(work.glob("trickledger-*.whl"))
    site = work / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(site), str(wheel)], check=True, capture_output=True)
    return site
