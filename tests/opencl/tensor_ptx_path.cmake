# The tensor-core kernel's NVIDIA path (kernels/tiled_tensor.cl with BOVW_PTX_MMA=1: inline PTX for
# mma.sync, the operands' rounding and cp.async), which PoCL never compiles and CI has no NVIDIA GPU
# to build: clang's NVPTX target compiles it at a few shapes of both operand formats, and the test
# counts what the unrolled word step must hold: one mma per k-step, m-tile and n-tile, of the
# format's shape only, its rounding instruction, and the asynchronous copies only where words are
# staged. It checks the OpenCL C around the PTX, not the PTX itself (clang passes inline asm
# through: ptxas, on the GPU machine, checks that).
# Usage: cmake -DCLANG=clang-14 -DKERNELS=kernels -DWORK_DIR=dir -P tensor_ptx_path.cmake
file(MAKE_DIRECTORY ${WORK_DIR})

# How many times `pattern` occurs in the PTX just read (`ptx`), into `result`.
function(count_matches result pattern)
  string(REGEX MATCHALL "${pattern}" found "${ptx}")
  list(LENGTH found n)
  set(${result} ${n} PARENT_SCOPE)
endfunction()
# Each format's mma and rounding instructions.
set(fp16 "mma\\.sync\\.aligned\\.m16n8k16\\.row\\.col\\.f32\\.f16\\.f16\\.f32" "cvt\\.rn\\.f16\\.f32")
set(tf32 "mma\\.sync\\.aligned\\.m16n8k8\\.row\\.col\\.f32\\.tf32\\.tf32\\.f32" "cvt\\.rna\\.tf32\\.f32")

# D, FP16 operands, m-tiles, n-tiles, warps, staged n-tiles: the host's shapes (tensor_core_search.cpp)
# and an odd D without staging.
foreach(shape "64;0;2;2;4;8" "64;1;2;4;4;8" "128;1;2;4;4;8" "128;0;1;2;8;4" "125;1;2;4;4;0")
  list(GET shape 0 d)
  list(GET shape 1 f16)
  list(GET shape 2 mt)
  list(GET shape 3 nt)
  list(GET shape 4 warps)
  list(GET shape 5 stage)
  set(what "D = ${d}, BOVW_F16 = ${f16}, ${mt} m-tiles, ${nt} n-tiles, ${warps} warps, ${stage} staged")
  set(ptx_file ${WORK_DIR}/tiled_tensor_${d}_${f16}_${mt}_${nt}_${stage}.ptx)
  execute_process(
    COMMAND ${CLANG} -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header
            -fgnu-keywords -D__OPENCL_VERSION__=120 -O2 -S -DBOVW_PTX_MMA=1 -DBOVW_D=${d} -DBOVW_F16=${f16}
            -DBOVW_MT=${mt} -DBOVW_NT=${nt} -DBOVW_WARPS=${warps} -DBOVW_STAGE=${stage}
            -o ${ptx_file} ${KERNELS}/tiled_tensor.cl
    RESULT_VARIABLE status ERROR_VARIABLE errors)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${what}: clang could not compile the NVIDIA path:\n${errors}")
  endif()
  file(READ ${ptx_file} ptx)
  if(f16)
    math(EXPR steps "(${d} + 15) / 16")
    set(own ${fp16})
    set(other ${tf32})
  else()
    math(EXPR steps "(${d} + 7) / 8")
    set(own ${tf32})
    set(other ${fp16})
  endif()
  list(GET own 0 own_mma_pattern)
  list(GET own 1 own_rounding_pattern)
  list(GET other 0 other_mma_pattern)
  list(GET other 1 other_rounding_pattern)
  count_matches(mma "${own_mma_pattern}")
  count_matches(rounding "${own_rounding_pattern}")
  count_matches(other_mma "${other_mma_pattern}")
  count_matches(other_rounding "${other_rounding_pattern}")
  count_matches(n_copies "cp\\.async\\.cg\\.shared\\.global")
  math(EXPR expected "${steps} * ${mt} * ${nt}")
  if(NOT mma EQUAL expected OR NOT other_mma EQUAL 0)
    message(FATAL_ERROR "${what}: ${mma} mma.sync of the format and ${other_mma} of the other, "
                        "expected ${expected} (k-steps x m-tiles x n-tiles) and 0")
  endif()
  if(rounding EQUAL 0 OR NOT other_rounding EQUAL 0)
    message(FATAL_ERROR "${what}: ${rounding} roundings to the format, ${other_rounding} to the other")
  endif()
  if((stage GREATER 0 AND n_copies EQUAL 0) OR (stage EQUAL 0 AND n_copies GREATER 0))
    message(FATAL_ERROR "${what}: ${n_copies} cp.async copies")
  endif()
  message(STATUS "${what}: ${mma} mma.sync, ${rounding} roundings, ${n_copies} cp.async")
endforeach()
