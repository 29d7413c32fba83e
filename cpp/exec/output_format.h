// OutputFormat: the one definition of every file Gauntlet writes.
//
// Each file's shape is a JSON Schema in data/formats/NAME.schema.json,
// compiled in. The schema's `format` property is the version every record of
// that file carries; C++ writers take it from here and Python reads the same
// documents through _core.output_formats(). Enumerations that C++ owns (the
// outcome kinds) are filled into the schemas here, so they have one table.
#ifndef GAUNTLET_EXEC_OUTPUT_FORMAT_H_
#define GAUNTLET_EXEC_OUTPUT_FORMAT_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gauntlet {

// The schema of one output file ("summary", "finding", "event", "statement",
// "run", ...). Throws std::out_of_range for an unknown name.
const nlohmann::json& OutputFormat(const std::string& name);
// Its version: the `format` value its records carry.
int FormatVersion(const std::string& name);
// Every schema's name.
std::vector<std::string> OutputFormatNames();

}  // namespace gauntlet

#endif  // GAUNTLET_EXEC_OUTPUT_FORMAT_H_
