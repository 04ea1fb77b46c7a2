// Calibration of activation ranges for post-training quantization (`dlc quantize`): the
// statistics of a tensor over the calibration runs, and the range each method takes
// from them (min-max, percentile of |x|, or the entropy (KL-divergence) threshold).
#ifndef DLC_COMPILER_QUANTIZE_CALIBRATION_H
#define DLC_COMPILER_QUANTIZE_CALIBRATION_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dlc::quantize {

/// How a tensor's quantization range is chosen from what calibration saw.
struct CalibrationMethod {
  enum Kind { MinMax, Percentile, Entropy } kind = MinMax;
  double percentile = 99.99; // Percentile: the share of |x| kept, in percent
  /// Whether the method needs the histogram pass (after the min-max pass).
  bool needsHistogram() const { return kind != MinMax; }
};

/// Parses `minmax`, `percentile` (99.99), `percentile:P` (0 < P <= 100) or
/// `entropy`; false with `error` set otherwise.
bool parseCalibrationMethod(const std::string &text, CalibrationMethod &out, std::string &error);

/// What calibration saw of one tensor. The first pass records the extremes
/// (`observe`); methods with a histogram then run the data again (`observeHistogram`)
/// into bins of |x| over [0, max |x| of the first pass] (at most `kBins`, fewer for
/// tensors with few values).
class RangeStats {
public:
  static constexpr size_t kBins = 2048;
  void observe(const float *data, int64_t n);
  void startHistogram();
  void observeHistogram(const float *data, int64_t n);

  bool seen() const { return count > 0; }
  /// NaN or infinity appeared (such a tensor cannot be given a range).
  bool nonFinite() const { return nonFiniteSeen; }
  double min() const { return lo; }
  double max() const { return hi; }

  /// The range [lo, hi] to quantize to, always containing 0 (so that 0 is exact):
  /// min-max, or the extremes clipped at the method's |x| threshold.
  std::pair<double, double> range(const CalibrationMethod &method) const;

private:
  double threshold(const CalibrationMethod &method) const;
  double lo = 0, hi = 0, absMax = 0;
  int64_t count = 0;
  bool nonFiniteSeen = false;
  std::vector<uint64_t> histogram;
};

/// Asymmetric uint8 parameters of a range that contains 0: scale (rhi - rlo) / 255
/// and the zero point that maps 0 exactly (scale 1, zero point 0 for an empty range).
struct AffineParams {
  float scale = 1;
  int32_t zeroPoint = 0;
};
AffineParams uint8Params(double lo, double hi);

} // namespace dlc::quantize

#endif
