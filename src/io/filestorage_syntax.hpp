// The three syntaxes of OpenCV FileStorage, each read by a parser that is safe on any input and fed
// to a FileStorageTreeBuilder (filestorage_tree.hpp). Each throws InvalidInput naming no file (the
// reader adds it) for text it does not accept.
#pragma once

#include "io/filestorage_tree.hpp"

#include <string>

namespace bovw::detail {

// "%YAML:1.0" files, with libyaml (filestorage_yaml.cpp).
FileStorageNode parseFileStorageYaml(std::string text, const FileStorageWanted& wanted);
// "<?xml" files with an <opencv_storage> root, with pugixml (filestorage_xml.cpp).
FileStorageNode parseFileStorageXml(const std::string& text, const FileStorageWanted& wanted);
// "{" files, with nlohmann::json's event parser (filestorage_json.cpp).
FileStorageNode parseFileStorageJson(const std::string& text, const FileStorageWanted& wanted);

}  // namespace bovw::detail
