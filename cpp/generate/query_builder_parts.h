// Internal to the query builder's three sources (queries, expressions,
// statements beyond SELECT): what they share.
#ifndef GAUNTLET_GENERATE_QUERY_BUILDER_PARTS_H_
#define GAUNTLET_GENERATE_QUERY_BUILDER_PARTS_H_

#include <cctype>
#include <string>

#include "generate/query_builder.h"

namespace gauntlet::builder {

using T = SqlType;

// Families that mix freely in comparisons, arithmetic and functions.
inline constexpr T kScalar[] = {T::kInt, T::kInt, T::kDecimal, T::kReal, T::kString, T::kString, T::kBinary,
                                T::kDate, T::kTime, T::kDatetime, T::kJson};

inline constexpr const char* kCompare[] = {"=", "<>", "<", "<=", ">", ">=", "<=>", "!="};

// INET6, UUID and geometry refuse most operators with other types.
inline bool IsRestricted(T t) { return t == T::kInet6 || t == T::kUuid || t == T::kGeometry; }

inline bool HasCi(const std::string& s, const char* needle) {
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find(needle) != std::string::npos;
}

inline std::string Quote(const std::string& name) { return "`" + name + "`"; }

}  // namespace gauntlet::builder

#endif  // GAUNTLET_GENERATE_QUERY_BUILDER_PARTS_H_
