# lit configuration for dlc: FileCheck tests of dialects, passes, codegen, frontends and tools.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "dlc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.dlc_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "e2e", "unit"]

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "CUDA_HOME"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["dlc", "dlc-opt"], [config.dlc_tools_dir])
# The project's venv Python (onnx, numpy), never whatever python3 is on PATH.
config.substitutions.insert(0, ("%python", config.dlc_python))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
# The CUDA toolkit's ptxas validates the PTX of --target=cuda (tests: REQUIRES: ptxas).
# The toolkit dlc uses: $CUDA_HOME, else /usr/local/cuda (with libdevice, which dlc links).
_cuda = os.environ.get("CUDA_HOME") or "/usr/local/cuda"
if os.path.isfile(os.path.join(_cuda, "bin", "ptxas")) and \
        os.path.isfile(os.path.join(_cuda, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", os.path.join(_cuda, "bin", "ptxas")))
