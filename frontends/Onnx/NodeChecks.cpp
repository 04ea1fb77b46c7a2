// Node checks before a builder runs: ONNX schema (counts, attributes) and attribute lists.
#include "frontends/Onnx/NodeChecks.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/defs/schema.h>

using namespace mlir;

namespace dlc::onnx_frontend {

/// Input/output counts and required attributes against ONNX's schema, where the
/// linked ONNX library knows this op at this opset.
LogicalResult checkSchema(const onnx::NodeProto &node, int opset, Location loc) {
  const auto &ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto known = ranges.find("");
  if (known == ranges.end() || opset > known->second.second)
    return success();
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
  if (!schema)
    return success();
  int inputs = node.input_size(), outputs = node.output_size();
  if (inputs < schema->min_input() || inputs > schema->max_input())
    return emitError(loc) << "has " << inputs << " inputs, expected " << schema->min_input()
                          << (schema->max_input() == schema->min_input()
                                  ? std::string()
                                  : " to " + (schema->max_input() > 1000
                                                  ? std::string("any")
                                                  : std::to_string(schema->max_input())));
  if (outputs < schema->min_output() || outputs > schema->max_output())
    return emitError(loc) << "has " << outputs << " outputs, expected " << schema->min_output()
                          << (schema->max_output() == schema->min_output()
                                  ? std::string()
                                  : " to " + std::to_string(schema->max_output()));
  for (const auto &entry : schema->attributes()) {
    const std::string &name = entry.first;
    if (entry.second.required &&
        llvm::none_of(node.attribute(),
                      [&](const onnx::AttributeProto &a) { return a.name() == name; }))
      return emitError(loc) << "missing required attribute '" << name << "'";
  }
  // Attributes the op does not have, or of another type, are errors (as ONNX's checker
  // and ONNX Runtime have them), not silently ignored.
  const auto &attrs = schema->attributes();
  for (const onnx::AttributeProto &a : node.attribute()) {
    auto it = attrs.find(a.name());
    if (it == attrs.end())
      return emitError(loc) << "has no attribute '" << a.name() << "'";
    if (a.has_type() && a.type() != it->second.type)
      return emitError(loc) << "attribute '" << a.name() << "' must be "
                            << onnx::AttributeProto::AttributeType_Name(it->second.type)
                            << ", got " << onnx::AttributeProto::AttributeType_Name(a.type());
  }
  return success();
}

/// Each attribute name once; a reference to a function's attribute (ref_attr_name) only
/// inside a function body, which dlc inlines before import.
LogicalResult checkAttributes(const onnx::NodeProto &node, Location loc) {
  llvm::StringSet<> seen;
  for (const onnx::AttributeProto &a : node.attribute()) {
    if (!seen.insert(a.name()).second)
      return emitError(loc) << "attribute '" << a.name() << "' is given twice";
    if (!a.ref_attr_name().empty())
      return emitError(loc) << "attribute '" << a.name() << "' refers to a function attribute ('"
                            << a.ref_attr_name() << "') outside a function";
  }
  return success();
}

LogicalResult checkDynamicDimName(Location loc, StringRef input, size_t dim, StringRef symbol) {
  if (symbol.find_first_of("*+-/(), ") == StringRef::npos &&
      symbol.find_first_not_of("0123456789") != StringRef::npos)
    return success();
  return emitError(loc) << "input '" << input << "' dim " << dim << ": symbolic dim '" << symbol
                        << "' cannot stay dynamic: its name is a number or has one of "
                           "* + - / ( ) , or a space (rename it, or fix the shape with "
                           "--input-shape)";
}

} // namespace dlc::onnx_frontend
