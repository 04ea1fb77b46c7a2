// A graph input's shape from its ONNX type and the compile options (see InputShape.h).
#include "frontends/Onnx/InputShape.h"
#include "frontends/Onnx/NodeChecks.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace dlc::onnx_frontend {

FailureOr<SmallVector<int64_t>> inputShape(Location loc, const std::string &name,
                                           const onnx::TypeProto_Tensor &tt,
                                           const ImportOptions &options,
                                           std::vector<std::string> *symbols,
                                           std::set<std::string> &used) {
  constexpr int64_t kMaxElements = int64_t(1) << 40;
  SmallVector<int64_t> shape;
  auto it = options.inputShapes.find(name);
  if (it != options.inputShapes.end()) {
    if (tt.has_shape() && tt.shape().dim_size() != (int)it->second.size())
      return emitError(loc) << "input '" << name << "' has rank " << tt.shape().dim_size()
                            << ", but a shape of rank " << it->second.size() << " was given";
    auto named = options.inputShapeSymbols.find(name);
    for (int i = 0; i < (int)it->second.size(); ++i) {
      int64_t want = it->second[i];
      // A dim given as a --dims symbol stays dynamic.
      if (named != options.inputShapeSymbols.end() && i < (int)named->second.size() &&
          !named->second[i].empty()) {
        const std::string &sym = named->second[i];
        if (!symbols || !options.dynamicDims.count(sym))
          return emitError(loc) << "--input-shape of '" << name << "': dim " << i
                                << " names '" << sym << "', which --dims does not give";
        if (tt.has_shape() && tt.shape().dim(i).has_dim_value())
          return emitError(loc) << "input '" << name << "' dim " << i << " is "
                                << tt.shape().dim(i).dim_value() << ", got '" << sym << "'";
        if (failed(checkDynamicDimName(loc, name, i, sym)))
          return failure();
        symbols->resize(it->second.size());
        (*symbols)[i] = sym;
        used.insert(sym);
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      if (tt.has_shape() && tt.shape().dim(i).has_dim_value() &&
          tt.shape().dim(i).dim_value() != want)
        return emitError(loc) << "input '" << name << "' dim " << i << " is "
                              << tt.shape().dim(i).dim_value() << ", got " << want;
      shape.push_back(want);
    }
  } else if (tt.has_shape()) {
    for (const auto &d : tt.shape().dim()) {
      if (d.has_dim_value() && d.dim_value() < 0)
        return emitError(loc) << "input '" << name << "' has negative dim "
                              << d.dim_value();
      if (d.has_dim_value() && d.dim_value() > kMaxElements)
        return emitError(loc) << "input '" << name << "' has dim " << d.dim_value()
                              << ", more than dlc supports (2^40)";
      // Symbolic dims named by dynamicDims stay dynamic; other symbolic or unknown dims
      // are specialized to 1 unless a shape is given.
      auto dynamic = d.has_dim_param() && symbols ? options.dynamicDims.find(d.dim_param())
                                                  : options.dynamicDims.end();
      if (!d.has_dim_value() && dynamic != options.dynamicDims.end()) {
        if (failed(checkDynamicDimName(loc, name, shape.size(), d.dim_param())))
          return failure();
        symbols->resize(tt.shape().dim_size());
        (*symbols)[shape.size()] = d.dim_param();
        used.insert(d.dim_param());
        shape.push_back(ShapedType::kDynamic);
        continue;
      }
      shape.push_back(d.has_dim_value() ? d.dim_value() : 1);
    }
  } else {
    return emitError(loc) << "input '" << name
                          << "' has no shape; give one with --input-shape";
  }
  return shape;
}

} // namespace dlc::onnx_frontend
