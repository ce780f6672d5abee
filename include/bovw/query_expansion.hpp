// Query expansion from verified results (Chum, Philbin, Sivic, Isard, Zisserman, "Total recall",
// ICCV 2007): a verified result shows what the query shows, seen again with features the query lacks
// (another viewpoint, other lighting); querying again with those features added finds images that
// share little with the query but much with its verified partners. Only the features inside the
// query's outline as the result's homography maps it are taken: the rest of the result is other
// scene, which would pull in its own neighbours (Chum et al. back-project only that region).
#pragma once

#include <bovw/image_words.hpp>

#include <opencv2/core.hpp>

#include <vector>

namespace bovw {

// A verified result: its stored features and the homography that maps the query's image
// coordinates onto its own (VerifiedResult::homography).
struct VerifiedView {
  ImageWords features;
  cv::Matx33d homography;
};

// The features of `view` that lie inside the outline of a query image of `query_size` (its border,
// (0, 0) to (width, height), mapped by the homography), each with its point mapped back into the
// query's coordinates, its word and its signature (when `view` has signatures), and its size and
// angle as seen in the query (when `view` has them: mapped by the back-projection's local linear
// map, so that weak geometric consistency compares them with the query's own); image_size is
// `query_size`. A point counts as inside when its back-projection lies in the query image on the
// side of the horizon the query's centre lies on (a homography of a verified match sends no part
// of the query to infinity: implausibleHomography). Throws InvalidInput for a singular homography
// or a view whose points, words, signatures, sizes and angles differ in number.
ImageWords featuresInView(const VerifiedView& view, cv::Size query_size);

// The expanded query: `query`'s features followed by featuresInView of each view, in order. Its
// histogram is the sum of theirs: average query expansion over raw counts (the scoring normalises the
// sum, so the average's 1/(n+1) does not matter). Signatures are kept when the query and every view
// have them, else dropped (an ImageWords has them for every feature or none); sizes and angles alike.
ImageWords expandQuery(const ImageWords& query, const std::vector<VerifiedView>& views);

}  // namespace bovw
