"""The bundle check refuses a library the build machine merely had (issue 32, packaging 2): every library at the
top of ``_internal`` comes from a wheel or is an allowlisted system library; build.spec drops GPU runtimes."""

from __future__ import annotations

from pathlib import Path

from freeze.check_bundle import build_machine_libraries

REPO = Path(__file__).resolve().parent.parent


def test_a_cuda_runtime_copied_from_the_build_machine_is_refused(tmp_path: Path) -> None:
    internal = tmp_path / "dist" / "_internal"
    internal.mkdir(parents=True)
    site = tmp_path / "site-packages" / "onnxruntime" / "capi"
    site.mkdir(parents=True)
    for name in ("libcudart.so.13", "libpython3.11.so.1.0", "libxcb-cursor.so.0", "libonnxruntime.so.1.20"):
        (internal / name).write_bytes(b"\x7fELF")
    (site / "libonnxruntime.so.1.20").write_bytes(b"\x7fELF")  # shipped by a wheel
    assert build_machine_libraries(tmp_path / "dist", tmp_path / "site-packages") == ["libcudart.so.13"]


def test_build_spec_drops_gpu_runtimes_by_name() -> None:
    from freeze.bundle_rules import dropped_binary

    for name in ("libcudart.so.13", "libcublasLt.so.12", "libnvrtc.so.12", "cudart64_12.dll", "libcudart.12.dylib"):
        assert dropped_binary(name), name
    assert not dropped_binary("libpython3.11.so.1.0") and not dropped_binary("libxcb-cursor.so.0")
