//===- scene.cpp - Read and check a path tracer scene ---------------------===//
//
// docs/pathtracer.md section 1: the JSON scene (nlohmann-json, in file order)
// and its OBJ meshes (tinyobjloader). Every message starts with the scene
// file and names the key (`quads[2].edge_u`) it is about.
//
//===----------------------------------------------------------------------===//

#include "scene.h"

#include <nlohmann/json.hpp>
#include <tiny_obj_loader.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <string_view>
#include <utility>

namespace sluice::pathtracer {
namespace {

using json = nlohmann::ordered_json;
using runtime::ErrorKind;

Status invalid(std::string message) {
  return Status::error(ErrorKind::InvalidArgument, std::move(message));
}

Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
float length(Vec3 a) { return std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z); }

const char *typeName(const json &value) {
  switch (value.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "an array";
  case json::value_t::string:
    return "a string";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
  case json::value_t::number_float:
    return "a number";
  default:
    return "a value";
  }
}

/// Reads one scene file; every method returns false after recording the
/// first error in `error`.
class SceneReader {
public:
  SceneReader(std::string path, Scene &scene)
      : path_(std::move(path)), scene_(scene) {}

  Status read();

private:
  bool fail(const std::string &key, const std::string &message) {
    if (error_.empty())
      error_ = path_ + ": " + (key.empty() ? "" : key + ": ") + message;
    return false;
  }

  // Only `allowed` keys, each of `required` present.
  bool checkKeys(const json &object, const std::string &key,
                 std::initializer_list<std::string_view> allowed,
                 std::initializer_list<std::string_view> required);
  bool readObject(const json &parent, const std::string &parentKey,
                  std::string_view name, const json *&out, bool optional);
  bool readNumber(const json &value, const std::string &key, float &out);
  bool readVec3(const json &value, const std::string &key, Vec3 &out);
  bool readString(const json &value, const std::string &key, std::string &out);
  bool readPattern(const json &value, const std::string &key, Material &out);
  bool readMaterialRef(const json &value, const std::string &key, int32_t &out);

  bool readCamera(const json &value);
  bool readMaterials(const json &value);
  bool readQuads(const json &value);
  bool readSpheres(const json &value);
  bool readMeshes(const json &value);
  bool readMesh(const json &value, const std::string &key);

  std::string path_;
  Scene &scene_;
  std::string error_;
};

bool SceneReader::checkKeys(const json &object, const std::string &key,
                            std::initializer_list<std::string_view> allowed,
                            std::initializer_list<std::string_view> required) {
  std::string where = key.empty() ? "the scene" : key;
  if (!object.is_object())
    return fail(key,
                std::string("expected an object, got ") + typeName(object));
  for (const auto &[name, value] : object.items()) {
    bool known = false;
    for (std::string_view a : allowed)
      known |= a == name;
    if (!known) {
      std::string list;
      for (std::string_view a : allowed)
        list += (list.empty() ? "" : ", ") + std::string(a);
      return fail(key, "unknown key '" + name + "' (the keys of " + where +
                           " are: " + list + ")");
    }
  }
  for (std::string_view r : required)
    if (!object.contains(r))
      return fail(key, "missing key '" + std::string(r) + "'");
  return true;
}

bool SceneReader::readNumber(const json &value, const std::string &key,
                             float &out) {
  if (!value.is_number())
    return fail(key, std::string("expected a number, got ") + typeName(value));
  double d = value.get<double>();
  float f = float(d);
  if (!std::isfinite(f))
    return fail(key,
                "the number " + value.dump() + " is not a finite 32-bit float");
  out = f;
  return true;
}

bool SceneReader::readVec3(const json &value, const std::string &key,
                           Vec3 &out) {
  if (!value.is_array() || value.size() != 3)
    return fail(key, std::string("expected an array of 3 numbers, got ") +
                         (value.is_array()
                              ? "an array of " + std::to_string(value.size()) +
                                    " elements"
                              : typeName(value)));
  float *fields[3] = {&out.x, &out.y, &out.z};
  for (size_t i = 0; i < 3; ++i)
    if (!readNumber(value[i], key + "[" + std::to_string(i) + "]", *fields[i]))
      return false;
  return true;
}

bool SceneReader::readString(const json &value, const std::string &key,
                             std::string &out) {
  if (!value.is_string())
    return fail(key, std::string("expected a string, got ") + typeName(value));
  out = value.get<std::string>();
  return true;
}

// `key` is the material's ("materials.NAME").
bool SceneReader::readPattern(const json &value, const std::string &key,
                              Material &out) {
  std::string name;
  if (!readString(value, key + ".texture", name))
    return false;
  if (out.kind != MaterialKind::Diffuse)
    return fail(key + ".texture",
                "a texture is only for a diffuse material (this one is " +
                    std::string(out.kind == MaterialKind::Mirror ? "a mirror"
                                                                 : "glass") +
                    ")");
  static constexpr std::pair<std::string_view, TexturePattern> patterns[] = {
      {"fbm", TexturePattern::Fbm},
      {"turbulence", TexturePattern::Turbulence},
      {"ridged", TexturePattern::Ridged},
      {"blocks", TexturePattern::Blocks}};
  for (auto [known, pattern] : patterns)
    if (name == known) {
      out.pattern = pattern;
      return true;
    }
  return fail(key + ".texture", "unknown texture '" + name +
                                    "' (the textures are: fbm, turbulence, "
                                    "ridged, blocks)");
}

bool SceneReader::readMaterialRef(const json &value, const std::string &key,
                                  int32_t &out) {
  std::string name;
  if (!readString(value, key, name))
    return false;
  for (size_t i = 0; i < scene_.materials.size(); ++i)
    if (scene_.materials[i].name == name) {
      out = int32_t(i);
      return true;
    }
  std::string list;
  for (const Material &m : scene_.materials)
    list += (list.empty() ? "" : ", ") + m.name;
  return fail(key, "unknown material '" + name +
                       "' (the materials are: " + list + ")");
}

bool SceneReader::readCamera(const json &value) {
  const std::string key = "camera";
  if (!checkKeys(value, key, {"eye", "look_at", "up", "fov_y_degrees"},
                 {"eye", "look_at", "up", "fov_y_degrees"}))
    return false;
  Camera &camera = scene_.camera;
  if (!readVec3(value["eye"], key + ".eye", camera.eye) ||
      !readVec3(value["look_at"], key + ".look_at", camera.lookAt) ||
      !readVec3(value["up"], key + ".up", camera.up) ||
      !readNumber(value["fov_y_degrees"], key + ".fov_y_degrees",
                  camera.fovYDegrees))
    return false;
  if (!(camera.fovYDegrees > 0 && camera.fovYDegrees < 180))
    return fail(key + ".fov_y_degrees",
                "must be in (0, 180), got " + value["fov_y_degrees"].dump());
  Vec3 forward{camera.lookAt.x - camera.eye.x, camera.lookAt.y - camera.eye.y,
               camera.lookAt.z - camera.eye.z};
  if (!(length(forward) > 0))
    return fail(key, "eye and look_at are the same point");
  float sideways = length(cross(forward, camera.up));
  if (!(sideways > 0) || !std::isfinite(sideways))
    return fail(key + ".up", "is zero or parallel to look_at - eye");
  return true;
}

bool SceneReader::readMaterials(const json &value) {
  if (!value.is_object())
    return fail("materials",
                std::string("expected an object, got ") + typeName(value));
  if (value.empty())
    return fail("materials", "no materials");
  for (const auto &[name, entry] : value.items()) {
    std::string key = "materials." + name;
    if (!checkKeys(entry, key, {"kind", "albedo", "emission", "ior", "texture"},
                   {"kind"}))
      return false;
    Material material;
    material.name = name;
    std::string kind;
    if (!readString(entry["kind"], key + ".kind", kind))
      return false;
    if (kind == "diffuse")
      material.kind = MaterialKind::Diffuse;
    else if (kind == "mirror")
      material.kind = MaterialKind::Mirror;
    else if (kind == "glass")
      material.kind = MaterialKind::Glass;
    else
      return fail(key + ".kind", "unknown material kind '" + kind +
                                     "' (the kinds are: diffuse, mirror, "
                                     "glass)");
    if (entry.contains("albedo") &&
        !readVec3(entry["albedo"], key + ".albedo", material.albedo))
      return false;
    if (entry.contains("emission") &&
        !readVec3(entry["emission"], key + ".emission", material.emission))
      return false;
    if (entry.contains("ior") &&
        !readNumber(entry["ior"], key + ".ior", material.ior))
      return false;
    for (auto [v, field] : {std::pair{material.albedo, "albedo"},
                            std::pair{material.emission, "emission"}})
      if (v.x < 0 || v.y < 0 || v.z < 0)
        return fail(key + "." + field, "must not be negative");
    if (!(material.ior > 0))
      return fail(key + ".ior", "must be positive");
    if (entry.contains("texture") &&
        !readPattern(entry["texture"], key, material))
      return false;
    scene_.materials.push_back(std::move(material));
  }
  return true;
}

bool SceneReader::readQuads(const json &value) {
  if (!value.is_array())
    return fail("quads",
                std::string("expected an array, got ") + typeName(value));
  for (size_t i = 0; i < value.size(); ++i) {
    std::string key = "quads[" + std::to_string(i) + "]";
    const json &entry = value[i];
    if (!checkKeys(entry, key, {"corner", "edge_u", "edge_v", "material"},
                   {"corner", "edge_u", "edge_v", "material"}))
      return false;
    Quad quad;
    if (!readVec3(entry["corner"], key + ".corner", quad.corner) ||
        !readVec3(entry["edge_u"], key + ".edge_u", quad.edgeU) ||
        !readVec3(entry["edge_v"], key + ".edge_v", quad.edgeV) ||
        !readMaterialRef(entry["material"], key + ".material", quad.material))
      return false;
    float area = length(cross(quad.edgeU, quad.edgeV));
    if (!(area > 0) || !std::isfinite(area))
      return fail(key, "degenerate quad: edge_u x edge_v has zero area");
    if (scene_.materials[size_t(quad.material)].emits())
      scene_.lights.push_back(uint32_t(scene_.quads.size()));
    scene_.quads.push_back(quad);
  }
  return true;
}

bool SceneReader::readSpheres(const json &value) {
  if (!value.is_array())
    return fail("spheres",
                std::string("expected an array, got ") + typeName(value));
  for (size_t i = 0; i < value.size(); ++i) {
    std::string key = "spheres[" + std::to_string(i) + "]";
    const json &entry = value[i];
    if (!checkKeys(entry, key, {"center", "radius", "material"},
                   {"center", "radius", "material"}))
      return false;
    Sphere sphere;
    if (!readVec3(entry["center"], key + ".center", sphere.center) ||
        !readNumber(entry["radius"], key + ".radius", sphere.radius) ||
        !readMaterialRef(entry["material"], key + ".material", sphere.material))
      return false;
    if (sphere.radius < 0)
      return fail(key + ".radius", "negative radius " + entry["radius"].dump());
    scene_.spheres.push_back(sphere);
  }
  return true;
}

bool SceneReader::readMesh(const json &entry, const std::string &key) {
  if (!checkKeys(entry, key, {"obj", "center", "scale", "material"},
                 {"obj", "center", "scale", "material"}))
    return false;
  std::string obj;
  Vec3 center;
  float scale = 1;
  int32_t material = 0;
  if (!readString(entry["obj"], key + ".obj", obj) ||
      !readVec3(entry["center"], key + ".center", center) ||
      !readNumber(entry["scale"], key + ".scale", scale) ||
      !readMaterialRef(entry["material"], key + ".material", material))
    return false;
  if (scale < 0)
    return fail(key + ".scale", "negative scale " + entry["scale"].dump());

  std::filesystem::path file(obj);
  if (file.is_relative())
    file = std::filesystem::path(path_).parent_path() / file;
  std::string objPath = file.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    return fail(key + ".obj", "OBJ file '" + objPath + "' does not exist");
  if (std::ifstream probe(file); !probe)
    return fail(key + ".obj", "cannot open OBJ file '" + objPath + "'");

  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(objPath, config)) {
    std::string message = reader.Error();
    while (!message.empty() && (message.back() == '\n'))
      message.pop_back();
    return fail(key + ".obj",
                "OBJ file '" + objPath + "' does not parse: " + message);
  }
  const tinyobj::attrib_t &attrib = reader.GetAttrib();
  size_t vertexCount = attrib.vertices.size() / 3;
  size_t faces = 0;
  for (const tinyobj::shape_t &shape : reader.GetShapes()) {
    const tinyobj::mesh_t &mesh = shape.mesh;
    size_t offset = 0;
    for (size_t f = 0; f < mesh.num_face_vertices.size(); ++f) {
      size_t corners = mesh.num_face_vertices[f];
      if (corners != 3)
        return fail(key + ".obj", "OBJ file '" + objPath + "': face " +
                                      std::to_string(faces + 1) + " has " +
                                      std::to_string(corners) +
                                      " vertices after triangulation");
      Vec3 v[3];
      for (size_t c = 0; c < 3; ++c) {
        int index = mesh.indices[offset + c].vertex_index;
        if (index < 0 || size_t(index) >= vertexCount)
          return fail(key + ".obj",
                      "OBJ file '" + objPath + "': face " +
                          std::to_string(faces + 1) +
                          " refers to a vertex that does not exist (the "
                          "file has " +
                          std::to_string(vertexCount) + " vertices)");
        const float *p = &attrib.vertices[3 * size_t(index)];
        v[c] = {center.x + scale * p[0], center.y + scale * p[1],
                center.z + scale * p[2]};
        if (!std::isfinite(v[c].x) || !std::isfinite(v[c].y) ||
            !std::isfinite(v[c].z))
          return fail(key + ".obj", "OBJ file '" + objPath + "': vertex " +
                                        std::to_string(index + 1) +
                                        " is not finite once placed");
      }
      scene_.triangles.push_back({v[0], v[1], v[2], material});
      offset += 3;
      ++faces;
    }
  }
  if (faces == 0)
    return fail(key + ".obj",
                "OBJ file '" + objPath + "' does not parse: it has no faces");
  return true;
}

bool SceneReader::readMeshes(const json &value) {
  if (!value.is_array())
    return fail("meshes",
                std::string("expected an array, got ") + typeName(value));
  for (size_t i = 0; i < value.size(); ++i)
    if (!readMesh(value[i], "meshes[" + std::to_string(i) + "]"))
      return false;
  return true;
}

Status SceneReader::read() {
  std::error_code ec;
  if (!std::filesystem::exists(path_, ec))
    return invalid(path_ + ": the scene file does not exist");
  std::ifstream in(path_, std::ios::binary);
  if (!in || std::filesystem::is_directory(path_, ec))
    return invalid(path_ + ": cannot read the scene file");
  std::stringstream text;
  text << in.rdbuf();
  json root;
  try {
    root = json::parse(text.str());
  } catch (const json::exception &error) {
    std::string message = error.what();
    // "[json.exception.parse_error.101] parse error at line 3, ..."
    if (size_t end = message.find("] "); end != std::string::npos)
      message = message.substr(end + 2);
    return invalid(path_ + ": not valid JSON: " + message);
  }
  scene_ = Scene();
  scene_.path = path_;
  bool ok =
      checkKeys(root, "", {"camera", "materials", "quads", "spheres", "meshes"},
                {"camera", "materials"}) &&
      readCamera(root["camera"]) && readMaterials(root["materials"]) &&
      (!root.contains("quads") || readQuads(root["quads"])) &&
      (!root.contains("spheres") || readSpheres(root["spheres"])) &&
      (!root.contains("meshes") || readMeshes(root["meshes"]));
  if (!ok)
    return invalid(error_);
  if (scene_.lights.empty())
    return invalid(path_ + ": the scene has no light (a quad whose material "
                           "has a positive emission)");
  if (scene_.triangles.size() > size_t(std::numeric_limits<int32_t>::max()))
    return invalid(path_ + ": " + std::to_string(scene_.triangles.size()) +
                   " triangles do not fit in i32 indices");
  return Status::success();
}

} // namespace

Status loadScene(const std::string &path, Scene &out) {
  return SceneReader(path, out).read();
}

} // namespace sluice::pathtracer
