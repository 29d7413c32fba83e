#include "generate/values.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "generate/dictionary.h"

namespace gauntlet {
namespace {

using K = BuiltinKind;

void Letters(Rng& rng, size_t n, char base, std::string& out) {
  for (size_t i = 0; i < n; ++i) out += static_cast<char>(base + rng.Below(26));
}

void AppendInt(int64_t v, std::string& out) { out += std::to_string(v); }

void Digits2(uint64_t v, std::string& out) {
  out += static_cast<char>('0' + v / 10);
  out += static_cast<char>('0' + v % 10);
}

void AppendDate(Rng& rng, std::string& out) {
  out += std::to_string(rng.RangeU(1971, 2035));
  out += '-';
  Digits2(rng.RangeU(1, 12), out);
  out += '-';
  Digits2(rng.RangeU(1, 28), out);
}

void AppendMicros(Rng& rng, std::string& out) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%06" PRIu64, rng.Below(1000000));
  out += buf;
}

void AppendTime(Rng& rng, std::string& out) {
  Digits2(rng.Below(24), out);
  out += ':';
  Digits2(rng.Below(60), out);
  out += ':';
  Digits2(rng.Below(60), out);
  out += '.';
  AppendMicros(rng, out);
}

void AppendString(Rng& rng, uint64_t max_length, std::string& out) {
  if (max_length == 0) return;
  Letters(rng, 1 + rng.Below(max_length), 'a', out);
}

void AppendWord(Rng& rng, int dictionary, std::string& out) {
  const auto& words = Dictionary(dictionary);
  out += words[rng.Below(words.size())];
}

void AppendText(Rng& rng, uint64_t length, std::string& out) {
  // English words filling `length` characters, as RQG's text().
  const size_t start = out.size();
  while (true) {
    const auto& words = Dictionary(0);
    const std::string_view w = words[rng.Below(words.size())];
    const size_t used = out.size() - start;
    if (used + w.size() >= length) break;
    out += w;
    out += ' ';
  }
  if (out.size() > start) out.pop_back();
}

void AppendFloat(Rng& rng, int max_exponent, std::string& out) {
  const double mantissa = rng.Uniform01() * 10.0;
  const int exponent = static_cast<int>(rng.Below(max_exponent + 1));
  const double v = (rng.Below(2) ? -1.0 : 1.0) * mantissa * std::pow(10.0, exponent - 1);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  out += buf;
}

void AppendDecimal(Rng& rng, int precision, int scale, std::string& out) {
  if (rng.Below(2)) out += '-';
  const int int_digits = precision - scale;
  if (int_digits == 0) {
    out += '0';
  } else {
    const uint64_t n = 1 + rng.Below(int_digits);
    out += static_cast<char>('1' + rng.Below(9));
    for (uint64_t i = 1; i < n; ++i) out += static_cast<char>('0' + rng.Below(10));
  }
  if (scale > 0) {
    out += '.';
    for (int i = 0; i < scale; ++i) out += static_cast<char>('0' + rng.Below(10));
  }
}

void AppendJsonValue(Rng& rng, int depth, std::string& out);

void AppendJsonKey(Rng& rng, std::string& out) { AppendWord(rng, 0, out); }

void AppendJsonPair(Rng& rng, int depth, std::string& out) {
  out += '"';
  AppendJsonKey(rng, out);
  out += "\": ";
  AppendJsonValue(rng, depth, out);
}

void AppendJsonArray(Rng& rng, uint64_t n, int depth, std::string& out) {
  out += '[';
  for (uint64_t i = 0; i < n; ++i) {
    if (i) out += ',';
    AppendJsonValue(rng, depth + 1, out);
  }
  out += ']';
}

void AppendJsonObject(Rng& rng, uint64_t n, int depth, std::string& out) {
  out += '{';
  for (uint64_t i = 0; i < n; ++i) {
    if (i) out += ',';
    AppendJsonPair(rng, depth + 1, out);
  }
  out += '}';
}

void AppendJsonValue(Rng& rng, int depth, std::string& out) {
  // RQG's mix: of 47 draws, 1 object, 1 array, 12 strings, 12 numbers and
  // 7 each of true, false and null. Nesting is capped so values stay finite.
  uint64_t r = rng.Below(47);
  if (depth >= 8 && r < 2) r = 2;
  if (r == 0) return AppendJsonObject(rng, rng.Below(9), depth, out);
  if (r == 1) return AppendJsonArray(rng, rng.Below(17), depth, out);
  if (r < 14) {
    out += '"';
    AppendString(rng, rng.Below(65), out);
    out += '"';
  } else if (r < 26) {
    AppendInt(rng.Range(-2147483648LL, 2147483647LL), out);
  } else if (r < 33) {
    out += "true";
  } else if (r < 40) {
    out += "false";
  } else {
    out += "null";
  }
}

void AppendJsonPath(Rng& rng, std::string& out) {
  out += '$';
  const uint64_t legs = rng.Below(5);
  for (uint64_t i = 0; i < legs; ++i) {
    switch (rng.Below(3)) {
      case 0: {
        const int64_t index = rng.Range(-1, 8);
        out += '[';
        if (index < 0) out += '*'; else AppendInt(index, out);
        out += ']';
        break;
      }
      case 1:
        out += "**";
        break;
      default:
        out += '.';
        if (rng.Below(4) == 0) {
          out += '*';
        } else if (rng.Below(3) == 0) {
          out += '"';
          AppendJsonKey(rng, out);
          out += '"';
        } else {
          AppendJsonKey(rng, out);
        }
    }
  }
}

const char kHex[] = "0123456789ABCDEF";

int64_t ClampToInt64(double v) {
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(v);
}

}  // namespace

int64_t DrawGaussian(Rng& rng, int64_t lo, int64_t hi) {
  // Irwin-Hall: the mean of 12 uniforms is close to normal, and bounded.
  double sum = 0;
  for (int i = 0; i < 12; ++i) sum += rng.Uniform01();
  const double width = static_cast<double>(hi) - static_cast<double>(lo) + 1.0;
  const int64_t v = lo + static_cast<int64_t>(width * (sum / 12.0));
  return v > hi ? hi : v;
}

int64_t DrawPareto(Rng& rng, int64_t lo, int64_t hi, double h) {
  // sysbench's rand_pareto: the share h of the keys gets 1-h of the draws.
  const double power = std::log(h) / std::log(1.0 - h);
  const double width = static_cast<double>(hi) - static_cast<double>(lo) + 1.0;
  const int64_t v = lo + static_cast<int64_t>(width * std::pow(rng.Uniform01(), power));
  return v > hi ? hi : v;
}

int64_t DrawZipf(Rng& rng, int64_t lo, int64_t hi, double s) {
  // Rejection-inversion sampling (Hormann and Derflinger, 1996) of rank k in
  // [1, n] with P(k) proportional to k^-s; no table, O(1) expected draws.
  const double n = static_cast<double>(hi - lo) + 1.0;
  auto H = [s](double x) {
    const double l = std::log(x);
    return std::fabs((1 - s) * l) < 1e-8 ? l : std::expm1((1 - s) * l) / (1 - s);
  };
  auto Hinv = [s](double x) {
    const double t = x * (1 - s);
    return std::fabs(t) < 1e-8 ? std::exp(x) : std::exp(std::log1p(t) / (1 - s));
  };
  auto h = [s](double x) { return std::exp(-s * std::log(x)); };
  const double h_x1 = H(1.5) - 1.0;
  const double h_n = H(n + 0.5);
  const double threshold = 2.0 - Hinv(H(2.5) - h(2.0));
  while (true) {
    const double u = h_n + rng.Uniform01() * (h_x1 - h_n);
    const double x = Hinv(u);
    double k = std::floor(x + 0.5);
    if (k < 1) k = 1;
    if (k > n) k = n;
    if (k - x <= threshold || u >= H(k + 0.5) - h(k)) {
      return lo + static_cast<int64_t>(k) - 1;
    }
  }
}

void AppendRawValue(const Builtin& b, Rng& rng, std::string& out) {
  switch (b.kind) {
    case K::kDigit: out += static_cast<char>('0' + rng.Below(10)); break;
    case K::kPositiveDigit: out += static_cast<char>('1' + rng.Below(9)); break;
    case K::kLetter: case K::kEnum: Letters(rng, 1, 'a', out); break;
    case K::kHex: {
      out += "0x";
      const uint64_t n = 1 + rng.Below(static_cast<uint64_t>(b.a > 0 ? b.a : 1));
      for (uint64_t i = 0; i < n; ++i) out += kHex[rng.Below(16)];
      break;
    }
    case K::kBlob: {
      out += "0x";
      const uint64_t n = 1 + rng.Below(b.has_a && b.a > 0 ? static_cast<uint64_t>(b.a) : 256);
      for (uint64_t i = 0; i < 2 * n; ++i) out += kHex[rng.Below(16)];
      break;
    }
    case K::kInteger:
      if (b.a >= 0) {
        const uint64_t hi = b.b >= 18446744073709551615.0 ? UINT64_MAX : static_cast<uint64_t>(b.b);
        out += std::to_string(rng.RangeU(static_cast<uint64_t>(b.a), hi));
      } else {
        AppendInt(rng.Range(ClampToInt64(b.a), ClampToInt64(b.b)), out);
      }
      break;
    case K::kDecimal: AppendDecimal(rng, static_cast<int>(b.a), static_cast<int>(b.b), out); break;
    case K::kFloat: AppendFloat(rng, 18, out); break;
    case K::kDouble: AppendFloat(rng, 80, out); break;
    case K::kString: AppendString(rng, static_cast<uint64_t>(b.a), out); break;
    case K::kText: AppendText(rng, static_cast<uint64_t>(b.a), out); break;
    case K::kDate: AppendDate(rng, out); break;
    case K::kTime: AppendTime(rng, out); break;
    case K::kDatetime:
      AppendDate(rng, out);
      out += ' ';
      AppendTime(rng, out);
      break;
    case K::kTimestamp:
      out += std::to_string(rng.RangeU(1971, 2035));
      Digits2(rng.RangeU(1, 12), out);
      Digits2(rng.RangeU(1, 28), out);
      Digits2(rng.Below(24), out);
      Digits2(rng.Below(60), out);
      Digits2(rng.Below(60), out);
      out += '.';
      AppendMicros(rng, out);
      break;
    case K::kYear: out += std::to_string(rng.RangeU(1971, 2035)); break;
    case K::kSet: {
      const uint64_t n = 1 + rng.Below(10);
      for (uint64_t i = 0; i < n; ++i) {
        if (i) out += ',';
        Letters(rng, 1, 'a', out);
      }
      break;
    }
    case K::kBit: {
      out += "b'";
      const uint64_t n = 1 + rng.Below(static_cast<uint64_t>(b.a > 0 ? b.a : 1));
      for (uint64_t i = 0; i < n; ++i) out += static_cast<char>('0' + rng.Below(2));
      out += '\'';
      break;
    }
    case K::kNull: out += "NULL"; break;
    case K::kEmpty: out += "''"; break;
    case K::kQuid: Letters(rng, 5, 'A', out); break;
    case K::kJson: {
      const uint64_t n = b.a < 0 ? rng.Below(65) : static_cast<uint64_t>(b.a);
      if (n == 0) break;
      if (rng.Below(2)) AppendJsonArray(rng, n - 1, 0, out);
      else AppendJsonObject(rng, n - 1, 0, out);
      break;
    }
    case K::kJsonPath: AppendJsonPath(rng, out); break;
    case K::kJsonKey: AppendJsonKey(rng, out); break;
    case K::kJsonValue: AppendJsonValue(rng, 0, out); break;
    case K::kJsonPair: AppendJsonPair(rng, 0, out); break;
    case K::kJsonArray: AppendJsonArray(rng, rng.Below(17), 0, out); break;
    case K::kJsonObject: AppendJsonObject(rng, rng.Below(9), 0, out); break;
    case K::kDictionary: AppendWord(rng, static_cast<int>(b.a), out); break;
    case K::kUniform:
      AppendInt(rng.Range(ClampToInt64(b.a), ClampToInt64(b.b)), out);
      break;
    case K::kGaussian: AppendInt(DrawGaussian(rng, ClampToInt64(b.a), ClampToInt64(b.b)), out); break;
    case K::kPareto: AppendInt(DrawPareto(rng, ClampToInt64(b.a), ClampToInt64(b.b), b.c), out); break;
    case K::kZipf: AppendInt(DrawZipf(rng, ClampToInt64(b.a), ClampToInt64(b.b), b.c), out); break;
    default: break;  // schema and environment built-ins are the generator's
  }
}

void AppendValue(const Builtin& b, Rng& rng, std::string& out) {
  if (!b.quoted) return AppendRawValue(b, rng, out);
  const size_t start = out.size();
  out += '\'';
  AppendRawValue(b, rng, out);
  if (out.find('\'', start + 1) != std::string::npos) {
    out[start] = '"';
    out += '"';
  } else {
    out += '\'';
  }
}

}  // namespace gauntlet
