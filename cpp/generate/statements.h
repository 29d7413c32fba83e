// Splits one generated query into the statements a server runs.
//
// RQG's rule: a query holding a compound statement (CREATE ... BEGIN/END,
// BEGIN NOT ATOMIC ... END, IF/CASE/LOOP/REPEAT/WHILE ... END) is sent whole;
// otherwise it is split at every `;` outside quotes. Empty pieces are dropped.
#ifndef GAUNTLET_GENERATE_STATEMENTS_H_
#define GAUNTLET_GENERATE_STATEMENTS_H_

#include <string>
#include <vector>

namespace gauntlet {

std::vector<std::string> SplitStatements(const std::string& query);

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_STATEMENTS_H_
