# Fails when a source of layer LAYER includes a header of a folder that is
# not LAYER itself nor one of ALLOWED: a layer reaching up, or sideways into
# a part it does not declare. Run by gauntlet_layer() at build time with
# ALLOWED and SOURCES as ,-lists; STAMP is touched when the check passes.
cmake_minimum_required(VERSION 3.18)
string(REPLACE "," ";" ALLOWED "${ALLOWED}")
string(REPLACE "," ";" SOURCES "${SOURCES}")
foreach(file IN LISTS SOURCES)
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"[a-z_]+/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]+\"([a-z_]+)/.*" "\\1" folder "${line}")
    if(NOT folder STREQUAL LAYER AND NOT folder IN_LIST ALLOWED)
      message(FATAL_ERROR "${file}: cpp/${LAYER} may use ${ALLOWED}, not ${folder}/ "
                          "(${line}); declare it in cpp/CMakeLists.txt or move the shared part down")
    endif()
  endforeach()
endforeach()
file(TOUCH "${STAMP}")
