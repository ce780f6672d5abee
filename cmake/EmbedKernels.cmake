# Embeds kernels/*.cl into the library as raw string literals, at build time.
# A kernel file may `#include "common.h"`: the shared header is inlined here so that the
# embedded source needs no include path on the device, while the .cl files still compile alone.

# bovw_embed_kernels(OUTPUT <cpp> HEADER <common.h> SOURCES <a.cl> ...)
function(bovw_embed_kernels)
  cmake_parse_arguments(ARG "" "OUTPUT;HEADER" "SOURCES" ${ARGN})
  add_custom_command(
    OUTPUT "${ARG_OUTPUT}"
    COMMAND "${CMAKE_COMMAND}" -DOUTPUT=${ARG_OUTPUT} -DHEADER=${ARG_HEADER}
            "-DSOURCES=${ARG_SOURCES}" -P "${BOVW_EMBED_SCRIPT}"
    DEPENDS ${ARG_SOURCES} "${ARG_HEADER}" "${BOVW_EMBED_SCRIPT}"
    COMMENT "Embedding OpenCL kernels"
    VERBATIM)
endfunction()

set(BOVW_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/EmbedKernelsScript.cmake" CACHE INTERNAL "")
