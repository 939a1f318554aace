"""Where the shared vectors live in the errand checkout this package sits in."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CONTRACT_VECTORS = REPO / "contracts" / "v1" / "vectors"
RFC8785 = REPO / "test" / "fixtures" / "rfc8785" / "cyberphone"
