// ResidentSignatures on an OpenCL device (kernels/signature_runs.cl): every word's list in one arena
// of ids and signatures in device memory, each word in a region with room to grow by appends.
#pragma once

#include "retrieval/resident_signatures.hpp"

#include <memory>
#include <string>

namespace bovw::detail {

// The lists of `postings`, copied to the device that `device` picks (a spec as HistogrammerConfig::
// device). Throws InvalidInput if no device matches or it lacks double precision (cl_khr_fp64: the
// runs' sums must be the host's bit for bit), CapacityError if the lists do not fit its memory, and
// OpenCLError.
std::unique_ptr<retrieval_detail::ResidentSignatures> makeResidentSignatures(
    const std::string& device, const retrieval_detail::SignaturePostings& postings);

}  // namespace bovw::detail
