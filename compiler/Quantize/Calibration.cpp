// Range statistics and calibration methods for `dlc quantize` (Calibration.h).
#include "compiler/Quantize/Calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace dlc::quantize {

bool parseCalibrationMethod(const std::string &text, CalibrationMethod &out, std::string &error) {
  out = CalibrationMethod();
  if (text == "minmax")
    return true;
  if (text == "entropy") {
    out.kind = CalibrationMethod::Entropy;
    return true;
  }
  if (text == "percentile" || text.rfind("percentile:", 0) == 0) {
    out.kind = CalibrationMethod::Percentile;
    if (text == "percentile")
      return true;
    std::string number = text.substr(11);
    char *end = nullptr;
    double p = std::strtod(number.c_str(), &end);
    if (!number.empty() && !*end && p > 0 && p <= 100) {
      out.percentile = p;
      return true;
    }
    error = "--method=percentile:P expects 0 < P <= 100, got '" + number + "'";
    return false;
  }
  error = "--method expects minmax, percentile[:P] or entropy, got '" + text + "'";
  return false;
}

void RangeStats::observe(const float *data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float v = data[i];
    if (!std::isfinite(v)) {
      nonFiniteSeen = true;
      continue;
    }
    if (count++ == 0)
      lo = hi = v;
    lo = std::min<double>(lo, v);
    hi = std::max<double>(hi, v);
  }
  absMax = std::max(std::fabs(lo), std::fabs(hi));
}

void RangeStats::startHistogram() {
  // Sparse histograms make the KL divergence of a coarser requantization look worse
  // than it is (counting noise), so the bins shrink with the data: 64 values per bin
  // on average, 2048 bins at most.
  int64_t bins = std::clamp<int64_t>(count / 64, 16, int64_t(kBins));
  histogram.assign(size_t(bins), 0);
}

void RangeStats::observeHistogram(const float *data, int64_t n) {
  if (histogram.empty() || absMax <= 0)
    return;
  size_t bins = histogram.size();
  double perBin = double(bins) / absMax;
  for (int64_t i = 0; i < n; ++i) {
    float v = data[i];
    if (!std::isfinite(v))
      continue;
    size_t bin = std::min<size_t>(bins - 1, size_t(std::fabs(v) * perBin));
    ++histogram[bin];
  }
}

/// The entropy threshold (TensorRT's calibration): the bin count i whose histogram,
/// clipped there (outliers added to the last bin) and requantized to `kLevels` levels,
/// has the least KL divergence from the clipped histogram.
static size_t entropyBins(const std::vector<uint64_t> &hist, size_t kLevels) {
  size_t bins = hist.size(), best = bins;
  if (bins <= kLevels) // too few values to tell: no clipping
    return bins;
  double bestKl = std::numeric_limits<double>::infinity();
  std::vector<double> p(bins), q(bins);
  uint64_t total = 0;
  for (uint64_t h : hist)
    total += h;
  if (total == 0)
    return bins;
  uint64_t outliers = total;
  for (size_t i = 0; i < kLevels; ++i)
    outliers -= hist[i];
  for (size_t i = kLevels; i <= bins; ++i) {
    // p: the first i bins, the rest folded into the last of them.
    for (size_t j = 0; j < i; ++j)
      p[j] = double(hist[j]);
    p[i - 1] += double(outliers);
    if (i < bins)
      outliers -= hist[i];
    // q: the first i bins merged into kLevels groups, each group's count spread
    // evenly over its non-empty bins.
    for (size_t g = 0; g < kLevels; ++g) {
      size_t start = g * i / kLevels, stop = (g + 1) * i / kLevels;
      double sum = 0;
      size_t nonEmpty = 0;
      for (size_t j = start; j < stop; ++j) {
        sum += double(hist[j]);
        nonEmpty += hist[j] != 0;
      }
      for (size_t j = start; j < stop; ++j)
        q[j] = hist[j] != 0 ? sum / double(nonEmpty) : 0;
    }
    double pSum = 0, qSum = 0;
    for (size_t j = 0; j < i; ++j)
      pSum += p[j], qSum += q[j];
    if (pSum <= 0 || qSum <= 0)
      continue;
    double kl = 0;
    for (size_t j = 0; j < i; ++j) {
      if (p[j] <= 0)
        continue;
      double pj = p[j] / pSum, qj = q[j] / qSum;
      // A bin the requantized histogram empties (the outlier bin, when its own bin
      // was empty) counts as a small probability, as in TensorRT.
      kl += pj * std::log(pj / (qj > 0 ? qj : 1e-9));
    }
    if (kl < bestKl)
      bestKl = kl, best = i;
  }
  return best;
}

double RangeStats::threshold(const CalibrationMethod &method) const {
  if (method.kind == CalibrationMethod::MinMax || histogram.empty() || absMax <= 0)
    return absMax;
  size_t bins = histogram.size();
  double width = absMax / double(bins);
  // The levels |x| gets: all 256 of uint8 for a tensor that is never negative (after
  // a ReLU), half of them otherwise.
  if (method.kind == CalibrationMethod::Entropy)
    return double(entropyBins(histogram, lo >= 0 ? 255 : 128)) * width;
  uint64_t total = 0;
  for (uint64_t h : histogram)
    total += h;
  double want = double(total) * method.percentile / 100.0, seenSoFar = 0;
  for (size_t i = 0; i < bins; ++i) {
    seenSoFar += double(histogram[i]);
    if (seenSoFar >= want)
      return double(i + 1) * width;
  }
  return absMax;
}

std::pair<double, double> RangeStats::range(const CalibrationMethod &method) const {
  if (!seen())
    return {0, 0};
  double t = threshold(method);
  double l = std::max(lo, -t), h = std::min(hi, t);
  return {std::min(l, 0.0), std::max(h, 0.0)};
}

AffineParams uint8Params(double lo, double hi) {
  AffineParams p;
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (!(hi > lo))
    return p;
  double scale = (hi - lo) / 255.0;
  p.scale = float(scale);
  if (!(p.scale > 0) || !std::isfinite(p.scale)) // below float's range: keep 1
    return AffineParams();
  p.zeroPoint = int32_t(std::clamp(std::nearbyint(-lo / double(p.scale)), 0.0, 255.0));
  return p;
}

} // namespace dlc::quantize
