# The model zoo's architectures: real torchvision / transformers models with random weights.
"""Registry of the zoo's architectures.

Each entry builds a real architecture from PyPI torch/torchvision/transformers with random
weights (seeded) and example inputs at batch 1. The transformers models use small configs
(few layers, narrow hidden size) of the real model classes: the graph's structure, masks,
attention variants and normalizations are the architecture's own, only the sizes shrink.

Only `export.py` imports this module (in the zoo's torch venv); `zoo.py` reads the names,
families and flags through `python -m` of that venv, so it does not need torch itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

EXPORTERS = ("torchscript", "dynamo")


@dataclass
class Arch:
    name: str
    family: str
    build: Callable  # () -> (module, tuple of example inputs, input names)
    ci: bool = False  # part of the CI subset (scripts/test)
    ci_exporter: str = "torchscript"
    exporters: tuple = EXPORTERS
    note: str = ""
    outputs: list = field(default_factory=list)


REGISTRY: list[Arch] = []


def arch(name, family, **kw):
    def wrap(fn):
        REGISTRY.append(Arch(name, family, fn, **kw))
        return fn
    return wrap


# ---------------------------------------------------------------------------
# Helpers (torch is imported lazily: the registry's metadata is readable without it)
# ---------------------------------------------------------------------------

def _image(h=224, w=None):
    import torch
    return torch.randn(1, 3, h, w or h)


def _tv(name, h=224, **kw):
    import torchvision
    m = getattr(torchvision.models, name)(weights=None, **kw).eval()
    return m, (_image(h),), ["image"]


class _Outputs:
    """Wraps a module whose forward returns a dict / ModelOutput / tuple into one returning
    the named tensors (a tuple), so every export has plain tensor outputs."""

    @staticmethod
    def make(module, arg_names, keys):
        """arg_names: the inner forward's keyword names for the inputs (None: positional)."""
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = module

            def forward(self, *args):
                out = (self.inner(*args) if arg_names is None
                       else self.inner(**dict(zip(arg_names, args))))
                if isinstance(out, torch.Tensor):
                    return out
                picked = tuple(out[k] for k in keys)
                return picked[0] if len(picked) == 1 else picked

        return Wrapped().eval()


def _ids(n, vocab, batch=1):
    import torch
    return torch.randint(0, vocab, (batch, n), dtype=torch.int64)


def _hf(model_cls, config, inputs: dict, keys=("last_hidden_state",)):
    """A transformers model from `config` (random weights) with the given inputs."""
    m = model_cls(config).eval()
    names = list(inputs)
    return _Outputs.make(m, names, list(keys)), tuple(inputs.values()), names


# ---------------------------------------------------------------------------
# torchvision: classification (every family)
# ---------------------------------------------------------------------------

for _name, _ci in [
    ("alexnet", False), ("vgg11_bn", False), ("resnet18", True), ("resnet50", False),
    ("resnext50_32x4d", True), ("wide_resnet50_2", False), ("squeezenet1_1", True),
    ("densenet121", False), ("googlenet", False), ("shufflenet_v2_x1_0", False),
    ("mobilenet_v2", False), ("mobilenet_v3_small", True), ("mobilenet_v3_large", False),
    ("mnasnet1_0", False), ("efficientnet_b0", False), ("efficientnet_v2_s", False),
    ("regnet_x_400mf", True), ("regnet_y_400mf", True), ("vit_b_16", False),
    ("swin_t", False), ("swin_v2_t", False), ("maxvit_t", True), ("convnext_tiny", False),
]:
    arch(_name, "torchvision classification", ci=_ci)(lambda n=_name: _tv(n))

arch("inception_v3", "torchvision classification")(
    lambda: _tv("inception_v3", 299, aux_logits=False, init_weights=True))


# ---------------------------------------------------------------------------
# torchvision: detection backbones, detectors, segmentation, video, optical flow
# ---------------------------------------------------------------------------

def _features(module, image):
    """A backbone returning an OrderedDict of feature maps, as a tuple of tensors."""
    import torch

    class Features(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = module

        def forward(self, x):
            return tuple(self.inner(x).values())

    return Features().eval(), (image,), ["image"]


@arch("resnet50_fpn_backbone", "torchvision detection backbone")
def _():
    from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
    return _features(resnet_fpn_backbone(backbone_name="resnet50", weights=None).eval(),
                     _image(320))


@arch("mobilenet_v3_fpn_backbone", "torchvision detection backbone", ci=True)
def _():
    from torchvision.models.detection.backbone_utils import mobilenet_backbone
    return _features(mobilenet_backbone(backbone_name="mobilenet_v3_large", fpn=True,
                                        weights=None).eval(), _image(320))


def _detector(name):
    import torchvision
    m = getattr(torchvision.models.detection, name)(weights=None, weights_backbone=None).eval()
    return _ListInput(m), (_image(320),), ["image"]


def _ListInput(m):
    import torch

    class ListInput(torch.nn.Module):
        """Detectors take a list of images and return a list of dicts."""

        def __init__(self):
            super().__init__()
            self.inner = m

        def forward(self, x):
            d = self.inner([x[0]])[0]
            return d["boxes"], d["scores"], d["labels"]

    return ListInput().eval()


arch("fasterrcnn_mobilenet_v3_large_320_fpn", "torchvision detection",
     exporters=("torchscript",))(lambda: _detector("fasterrcnn_mobilenet_v3_large_320_fpn"))
arch("ssdlite320_mobilenet_v3_large", "torchvision detection",
     exporters=("torchscript",))(lambda: _detector("ssdlite320_mobilenet_v3_large"))


def _seg(name, h=224):
    import torchvision
    m = getattr(torchvision.models.segmentation, name)(weights=None, weights_backbone=None,
                                                       aux_loss=False).eval()
    return _Outputs.make(m, None, ["out"]), (_image(h),), ["image"]


for _name, _ci in [("fcn_resnet50", False), ("deeplabv3_mobilenet_v3_large", False),
                   ("deeplabv3_resnet50", False), ("lraspp_mobilenet_v3_large", True)]:
    arch(_name, "torchvision segmentation", ci=_ci)(lambda n=_name: _seg(n))


def _video(name, t=8, h=112):
    import torch
    import torchvision
    m = getattr(torchvision.models.video, name)(weights=None).eval()
    return m, (torch.randn(1, 3, t, h, h),), ["clip"]


for _name in ("r3d_18", "mc3_18", "r2plus1d_18"):
    arch(_name, "torchvision video", ci=_name == "r3d_18")(lambda n=_name: _video(n))
arch("s3d", "torchvision video")(lambda: _video("s3d", t=16, h=224))


@arch("raft_small", "torchvision optical flow")
def _():
    import torchvision
    m = torchvision.models.optical_flow.raft_small(weights=None).eval()

    class Last(__import__("torch").nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = m

        def forward(self, a, b):
            return self.inner(a, b, num_flow_updates=4)[-1]

    return Last().eval(), (_image(128), _image(128)), ["image1", "image2"]


# ---------------------------------------------------------------------------
# transformers: encoders
# ---------------------------------------------------------------------------

SEQ = 32
VOCAB = 1000
SMALL = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
             intermediate_size=256, vocab_size=VOCAB)


def _text_inputs(mask=True):
    import torch
    ids = _ids(SEQ, VOCAB)
    if not mask:
        return {"input_ids": ids}
    m = torch.ones(1, SEQ, dtype=torch.int64)
    m[0, SEQ - 5:] = 0  # padded tail
    return {"input_ids": ids, "attention_mask": m}


def _encoder(model, config, **cfg):
    import transformers
    c = getattr(transformers, config)(**{**SMALL, **cfg})
    return _hf(getattr(transformers, model), c, _text_inputs())


arch("bert", "transformers encoder", ci=True)(lambda: _encoder("BertModel", "BertConfig"))
arch("roberta", "transformers encoder")(lambda: _encoder("RobertaModel", "RobertaConfig"))
arch("albert", "transformers encoder")(
    lambda: _encoder("AlbertModel", "AlbertConfig", embedding_size=64))
arch("electra", "transformers encoder")(
    lambda: _encoder("ElectraModel", "ElectraConfig", embedding_size=64))
arch("deberta_v2", "transformers encoder")(
    lambda: _encoder("DebertaV2Model", "DebertaV2Config"))


@arch("distilbert", "transformers encoder")
def _():
    import transformers
    c = transformers.DistilBertConfig(dim=128, n_layers=2, n_heads=4, hidden_dim=256,
                                      vocab_size=VOCAB)
    return _hf(transformers.DistilBertModel, c, _text_inputs())


# ---------------------------------------------------------------------------
# transformers: decoders (causal mask; GQA and rotary embeddings)
# ---------------------------------------------------------------------------

def _decoder(model, config, **cfg):
    import transformers
    c = getattr(transformers, config)(**{**SMALL, "use_cache": False, **cfg})
    return _hf(getattr(transformers, model), c, _text_inputs(mask=False), keys=("logits",))


arch("gpt2", "transformers decoder", ci=True, ci_exporter="dynamo")(lambda: _decoder(
    "GPT2LMHeadModel", "GPT2Config", n_embd=128, n_layer=2, n_head=4, n_inner=256))
arch("llama", "transformers decoder (GQA, rotary)", ci=True, ci_exporter="dynamo")(lambda: _decoder(
    "LlamaForCausalLM", "LlamaConfig", num_key_value_heads=2))
arch("qwen2", "transformers decoder (GQA, rotary)")(lambda: _decoder(
    "Qwen2ForCausalLM", "Qwen2Config", num_key_value_heads=2))
arch("mistral", "transformers decoder (GQA, rotary)")(lambda: _decoder(
    "MistralForCausalLM", "MistralConfig", num_key_value_heads=1))
arch("gemma", "transformers decoder (GQA, rotary)")(lambda: _decoder(
    "GemmaForCausalLM", "GemmaConfig", num_key_value_heads=1, head_dim=32))
arch("phi3", "transformers decoder (rotary)")(lambda: _decoder(
    "Phi3ForCausalLM", "Phi3Config", num_key_value_heads=2, pad_token_id=0))
arch("gpt_neox", "transformers decoder (rotary)")(lambda: _decoder(
    "GPTNeoXForCausalLM", "GPTNeoXConfig"))
arch("opt", "transformers decoder")(lambda: _decoder(
    "OPTForCausalLM", "OPTConfig", ffn_dim=256, word_embed_proj_dim=128))


# ---------------------------------------------------------------------------
# transformers: encoder-decoders and speech
# ---------------------------------------------------------------------------

def _seq2seq(model, config, **cfg):
    import transformers
    c = getattr(transformers, config)(**{**cfg, "use_cache": False})
    inputs = {**_text_inputs(), "decoder_input_ids": _ids(8, VOCAB)}
    return _hf(getattr(transformers, model), c, inputs)


arch("t5", "transformers encoder-decoder")(lambda: _seq2seq(
    "T5Model", "T5Config", vocab_size=VOCAB, d_model=128, d_kv=32, d_ff=256, num_layers=2,
    num_heads=4))
arch("bart", "transformers encoder-decoder")(lambda: _seq2seq(
    "BartModel", "BartConfig", vocab_size=VOCAB, d_model=128, encoder_layers=2,
    decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
    encoder_ffn_dim=256, decoder_ffn_dim=256))


@arch("whisper", "transformers speech encoder-decoder")
def _():
    import torch
    import transformers
    c = transformers.WhisperConfig(vocab_size=VOCAB, num_mel_bins=80, d_model=128,
                                   encoder_layers=2, decoder_layers=2,
                                   encoder_attention_heads=4, decoder_attention_heads=4,
                                   encoder_ffn_dim=256, decoder_ffn_dim=256,
                                   max_source_positions=100, use_cache=False)
    inputs = {"input_features": torch.randn(1, 80, 200), "decoder_input_ids": _ids(8, VOCAB)}
    return _hf(transformers.WhisperModel, c, inputs)


def _speech(model, config):
    import torch
    import transformers
    c = getattr(transformers, config)(hidden_size=128, num_hidden_layers=2,
                                      num_attention_heads=4, intermediate_size=256,
                                      conv_dim=(64,) * 7, num_conv_pos_embeddings=16)
    return _hf(getattr(transformers, model), c, {"input_values": torch.randn(1, 8000)})


arch("wav2vec2", "transformers speech encoder")(lambda: _speech("Wav2Vec2Model", "Wav2Vec2Config"))
arch("hubert", "transformers speech encoder")(lambda: _speech("HubertModel", "HubertConfig"))


# ---------------------------------------------------------------------------
# transformers: vision
# ---------------------------------------------------------------------------

def _vision(model, config, h=64, keys=("last_hidden_state",), **cfg):
    import transformers
    c = getattr(transformers, config)(**cfg)
    return _hf(getattr(transformers, model), c, {"pixel_values": _image(h)}, keys=keys)


VIT = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=4, intermediate_size=256,
           image_size=64, patch_size=8)
arch("hf_vit", "transformers vision", ci=True)(lambda: _vision("ViTModel", "ViTConfig", **VIT))
arch("deit", "transformers vision")(lambda: _vision("DeiTModel", "DeiTConfig", **VIT))
arch("dinov2", "transformers vision")(lambda: _vision("Dinov2Model", "Dinov2Config", **VIT))
arch("clip_vision", "transformers vision")(
    lambda: _vision("CLIPVisionModel", "CLIPVisionConfig", **VIT))
arch("segformer", "transformers vision")(lambda: _vision(
    "SegformerForSemanticSegmentation", "SegformerConfig", h=128, keys=("logits",),
    hidden_sizes=[16, 32, 64, 128], decoder_hidden_size=64, num_labels=10))
arch("hf_swin", "transformers vision")(lambda: _vision(
    "SwinModel", "SwinConfig", embed_dim=32, depths=[1, 1, 2, 1], num_heads=[1, 2, 4, 8],
    image_size=64, patch_size=4, window_size=4))
arch("hf_convnext", "transformers vision")(lambda: _vision(
    "ConvNextModel", "ConvNextConfig", hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 2, 1]))


def by_name() -> dict[str, Arch]:
    return {a.name: a for a in REGISTRY}
