# Quantized end-to-end models: networks of models.py quantized by ONNX Runtime's own tool.
"""int8 test models for dlc (issue 18).

Each entry of :data:`QUANT_MODELS` is ``build(seed) -> (model, inputs)`` like
:data:`models.MODELS`: a float network of ``models.py`` quantized the way an ONNX Runtime
user quantizes it, so dlc is checked on the QDQ and integer-op graphs real tools write:

* ``quantize_static`` (QDQ format, s8 weights per output channel or per tensor, u8 or s8
  activations, min-max calibration on a few random inputs drawn like the test input),
  after ``quant_pre_process`` (BatchNormalization folded into Conv);
* ``quantize_dynamic`` (s8 MatMul weights, activations quantized per call by
  DynamicQuantizeLinear, MatMulInteger), the transformer recipe.

The reference is ONNX Runtime with graph optimizations disabled, which runs each
DequantizeLinear, float op and QuantizeLinear as written (the QDQ model's meaning);
dlc's integer products are exact, so outputs differ by float rounding of the reference's
products, a quantum of an output here and there (the tolerance of the e2e-quant test).
"""
from __future__ import annotations

from models import MODELS
from quantize import quantize_dynamic_int8, quantize_static_qdq


def static(name: str, **options):
    """MODELS[name] quantized by quantize_static (options: per_channel, signed_activations)."""
    def build(seed: int):
        model, inputs = MODELS[name](seed)
        return quantize_static_qdq(model, inputs, seed, **options), inputs
    return build


def dynamic(name: str):
    """MODELS[name] quantized by quantize_dynamic."""
    def build(seed: int):
        model, inputs = MODELS[name](seed)
        return quantize_dynamic_int8(model), inputs
    return build


QUANT_MODELS = {
    "q_mlp_b64": static("mlp_b64"),
    "q_mlp_b64_per_tensor_s8": static("mlp_b64", per_channel=False, signed_activations=True),
    "q_lenet5": static("lenet5"),
    "q_lenet5_s8": static("lenet5", signed_activations=True),
    "q_resnet18": static("resnet18"),
    "q_mobilenetv2": static("mobilenetv2"),
    "q_bert_layer_dynamic": dynamic("bert_layer"),
}
