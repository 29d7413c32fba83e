#include "exec/syntax_share.h"

#include <algorithm>
#include <vector>

namespace gauntlet {

std::string SyntaxShare::Add(const std::string& rule, bool syntax_error) {
  if (judged_.load(std::memory_order_relaxed)) return "";
  std::lock_guard<std::mutex> lock(mu_);
  if (judged_) return "";
  RuleCounts& first = first_[rule];
  ++first.statements;
  first.syntax_errors += syntax_error;
  if (++first_total_ < kJudgedAfter) return "";
  judged_ = true;
  return Verdict();
}

std::string SyntaxShare::Final() {
  std::lock_guard<std::mutex> lock(mu_);
  if (judged_ || first_total_ < kFewest) return "";
  judged_ = true;
  return Verdict();
}

std::string SyntaxShare::Verdict() const {
  uint64_t syntax = 0;
  for (const auto& [rule, c] : first_) syntax += c.syntax_errors;
  if (static_cast<double>(syntax) < kUseless * static_cast<double>(first_total_)) return "";
  std::vector<std::pair<std::string, RuleCounts>> worst(first_.begin(), first_.end());
  std::stable_sort(worst.begin(), worst.end(),
                   [](const auto& a, const auto& b) { return a.second.syntax_errors > b.second.syntax_errors; });
  std::string rules;
  for (size_t i = 0; i < worst.size() && i < 5 && worst[i].second.syntax_errors > 0; ++i)
    rules += (i ? ", " : "") + worst[i].first + " (" + std::to_string(worst[i].second.syntax_errors) + " of " +
             std::to_string(worst[i].second.statements) + ")";
  return std::to_string(syntax) + " of the run's first " + std::to_string(first_total_) +
         " statements were syntax errors: the grammar does not fit this server's SQL, so the run tests only its "
         "parser; rules: " + rules + " (summary.json's \"rules\" and \"errors\" have examples)";
}

}  // namespace gauntlet
