// A source of cpp/exec that includes the server layer above it: the layer
// check (cmake/CheckLayer.cmake) must refuse it (tests/CMakeLists.txt).
#include "server/managed_server.h"
