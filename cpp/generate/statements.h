// Splits one generated query into the statements a server runs.
//
// A query holding a compound statement (CREATE ... BEGIN/END, BEGIN NOT
// ATOMIC ... END, IF/CASE/LOOP/REPEAT/WHILE/DECLARE ... END as statements,
// labelled blocks) is sent whole; otherwise it is split at every `;` outside
// quotes. Empty pieces are dropped. (RQG sends whole any query holding
// CASE ... WHEN ... THEN ... END or IF ... THEN ... END anywhere, so
// `START TRANSACTION ; UPDATE t SET a = CASE ... END ; COMMIT` went to the
// server as one statement, a syntax error.)
// The pieces are views into `query`, which must outlive them.
#ifndef GAUNTLET_GENERATE_STATEMENTS_H_
#define GAUNTLET_GENERATE_STATEMENTS_H_

#include <string>
#include <string_view>
#include <vector>

namespace gauntlet {

std::vector<std::string_view> SplitStatements(std::string_view query);
// The same into `pieces` (cleared first), reusing its memory in hot loops.
void SplitStatements(std::string_view query, std::vector<std::string_view>* pieces);

// The statement's first word, upper-cased, past spaces, parentheses and
// comments ("SELECT", "INSERT", ...); "" when there is none.
std::string Verb(std::string_view statement);
// Whether that word is `upper` (given upper-cased), without building it: the
// per-statement loop asks this of every statement.
bool VerbIs(std::string_view statement, std::string_view upper);
// Statements of this verb change no data (SELECT, SHOW, SET, BEGIN, ...;
// COMMIT does: it makes changes visible).
bool VerbChangesNoData(std::string_view verb);
// The statement may change data: its verb does, or it advances a sequence
// (SELECT NEXTVAL(s); oracle/volatile_values.h lists the forms). Errs toward
// "changes": a statement that only mentions such a word counts as a write.
bool ChangesData(std::string_view statement);
// What SET STATEMENT v = x [, ...] FOR runs: the text after its FOR; "" for any other statement.
std::string_view SetStatementBody(std::string_view statement);

}  // namespace gauntlet

#endif  // GAUNTLET_GENERATE_STATEMENTS_H_
