# Embeds kernels/*.cl into the library as raw string literals, at build time.
# A kernel file may `#include "<header>.h"` of the kernels folder: the header is inlined here so that
# the embedded source needs no include path on the device, while the .cl files still compile alone.

# bovw_embed_kernels(OUTPUT <cpp> HEADERS <common.h> ... SOURCES <a.cl> ...)
function(bovw_embed_kernels)
  cmake_parse_arguments(ARG "" "OUTPUT" "HEADERS;SOURCES" ${ARGN})
  list(GET ARG_HEADERS 0 first_header)
  get_filename_component(kernel_dir "${first_header}" DIRECTORY)
  add_custom_command(
    OUTPUT "${ARG_OUTPUT}"
    COMMAND "${CMAKE_COMMAND}" -DOUTPUT=${ARG_OUTPUT} -DKERNEL_DIR=${kernel_dir}
            "-DSOURCES=${ARG_SOURCES}" -P "${BOVW_EMBED_SCRIPT}"
    DEPENDS ${ARG_SOURCES} ${ARG_HEADERS} "${BOVW_EMBED_SCRIPT}"
    COMMENT "Embedding OpenCL kernels"
    VERBATIM)
endfunction()

set(BOVW_EMBED_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/EmbedKernelsScript.cmake" CACHE INTERNAL "")
