// terrane for C#: P/Invoke declarations of the C API (include/terrane/terrane.h, the contract)
// and safe wrappers over them. One file: drop it beside the native library (libterrane.so,
// terrane.dll, libterrane.dylib) in a Unity project's Assets/Plugins. See README.md.
//
// Layers
//   Native       the C functions as declared in terrane.h (raw: statuses, IntPtr strings).
//   *Handle      SafeHandles that free each native object exactly once.
//   Preset, Query, Streamer, World: owners of those handles (IDisposable); TerraneApi: the free
//   functions (Heights, Scatter, Bake, NavPath). Every non-OK status is a TerraneException
//   with the Status and the library's one-line message.
//
// Strings go to the library as NUL-terminated UTF-8 and come back as UTF-8; strings the library
// returns are its own (never freed here). Structs mirror the C layouts field for field
// (LayoutKind.Sequential, natural alignment); C arrays inside structs (float normal[3],
// int32_t stitch[4]) are spelled as separate fields so that every struct stays blittable.
//
// Threading is the C API's: "any thread" functions may be called concurrently; a Streamer and a
// World are used from one thread at a time (their owner).
//
// C# 7 without newer features (Debian's mcs, Unity's compilers); no unsafe code.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;

namespace Terrane {

/// <summary>terrane_status: the result of every fallible call.</summary>
public enum Status : int {
  Ok = 0,
  InvalidArgument = 1,
  Parse = 2,
  Io = 3,
  Limit = 4,
  Internal = 5,
  Cancelled = 6,
  BufferTooSmall = 7
}

/// <summary>A failed terrane call: its status and the library's message.</summary>
public class TerraneException : Exception {
  public Status Status { get; private set; }
  /// <summary>For BufferTooSmall: the number of elements the call needs; else 0.</summary>
  public ulong Needed { get; private set; }

  public TerraneException(Status status, string message, ulong needed = 0)
      : base(message) {
    Status = status;
    Needed = needed;
  }
}

// ------------------------------------------------------------------------------------------
// Structs (terrane.h layouts)

[StructLayout(LayoutKind.Sequential)]
public struct PresetInfo {
  public ulong Seed;
  public ulong Hash;        // of the canonical JSON: equal hashes, equal worlds
  public double CellSizeM;  // world.cell_size_m
  public int Size;          // world.size: samples per side of a bake
  public double HeightMinM;
  public double HeightMaxM;
  public double SeaLevelM;
  public int SplatLayers;
  public int Species;
  public int HasPost;       // nonzero: the preset has post operations (bakes only)
}

/// <summary>terrane_instance: one scatter object (64 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
public struct Instance {
  public double XM, ZM;           // world position
  public float YM;                // height of the level-0 surface under it
  public float YawDeg;            // rotation about +y
  public float ScaleXZ, ScaleY;
  public float NormalX, NormalY, NormalZ;  // float normal[3]
  public int Species;             // index into Preset.SpeciesNames
  public ulong Id;                // stable across runs
  public ulong State;             // 0 as generated
}

/// <summary>terrane_bake_options as the library sees it; use BakeOptions instead.</summary>
[StructLayout(LayoutKind.Sequential)]
public struct NativeBakeOptions {
  public IntPtr OutDir;   // const char*
  public IntPtr Formats;  // const char*
  public IntPtr Engine;   // const char*
  public IntPtr Erode;    // const char*
  public int Size;
  public int Width, Height;
  public double CellM;
  public double OriginXM, OriginZM;
  public int HasSeed;
  public ulong Seed;
  public int Tiles;
  public int Lod;
  public int Threads;
}

[StructLayout(LayoutKind.Sequential)]
public struct BakeResult {
  public uint Files;       // files written, the sidecar included
  public ulong Bytes;      // their total size
  public uint Warnings;    // non-fatal findings (listed in the sidecar)
  public int Width, Height;
  public double GenerationS, TotalS;
}

[StructLayout(LayoutKind.Sequential)]
public struct RayHit {
  public double DistanceM;
  public double XM, YM, ZM;
  public float NormalX, NormalY, NormalZ;
}

[StructLayout(LayoutKind.Sequential)]
public struct StreamerParams {
  public int ChunkCells;        // power of two in 8..1024; default 128
  public double ViewDistanceM;  // default 2000, at most 1e6
  public double Lod0DistanceM;  // 0: automatic
  public ulong BudgetBytes;     // 0: automatic
  public int Threads;           // 0: all cores
  public int Surface;           // nonzero: splat weights and scatter per chunk
  public int WorkerPriority;    // 0 background, 1 low, 2 normal

  /// <summary>The library's defaults (terrane_streamer_params_init).</summary>
  public static StreamerParams Default() {
    StreamerParams p = new StreamerParams();
    Native.terrane_streamer_params_init(ref p);
    return p;
  }
}

[StructLayout(LayoutKind.Sequential)]
public struct Viewer {
  public double XM, YM, ZM;
  public double VxMS, VyMS, VzMS;  // velocity [m/s], for look-ahead

  public Viewer(double x, double y, double z) {
    XM = x; YM = y; ZM = z;
    VxMS = 0; VyMS = 0; VzMS = 0;
  }
}

[StructLayout(LayoutKind.Sequential)]
public struct ChunkKey : IEquatable<ChunkKey> {
  public long Cx, Cz;  // node column and row at its level
  public int Level;    // 0 = finest

  public ChunkKey(long cx, long cz, int level) {
    Cx = cx; Cz = cz; Level = level;
  }
  public bool Equals(ChunkKey o) { return Cx == o.Cx && Cz == o.Cz && Level == o.Level; }
  public override bool Equals(object o) { return o is ChunkKey && Equals((ChunkKey)o); }
  public override int GetHashCode() {
    return (Cx.GetHashCode() * 397 ^ Cz.GetHashCode()) * 31 + Level;
  }
  public override string ToString() { return Cx + " " + Cz + " " + Level; }
}

public enum ChunkEventKind : int { Ready = 0, Evicted = 1, Updated = 2 }

[StructLayout(LayoutKind.Sequential)]
public struct ChunkEvent {
  public int Kind;  // ChunkEventKind
  public ChunkKey Key;
  public ChunkEventKind EventKind { get { return (ChunkEventKind)Kind; } }
}

[StructLayout(LayoutKind.Sequential)]
public struct VisibleChunk {
  public ChunkKey Key;
  // int32_t stitch[4]: per edge (-x, +x, -z, +z), how many levels coarser the neighbour is.
  public int StitchNegX, StitchPosX, StitchNegZ, StitchPosZ;
  public int[] Stitch() { return new int[] { StitchNegX, StitchPosX, StitchNegZ, StitchPosZ }; }
}

[StructLayout(LayoutKind.Sequential)]
public struct ChunkInfo {
  public uint Vertices;   // (N+1)^2
  public uint Instances;  // scatter instances (level 0 with surface data)
  public double OriginXM; // world position of vertex 0
  public double OriginZM;
  public float HeightMinM, HeightMaxM;
  public ulong ContentHash;  // equal hashes, equal bytes
}

[StructLayout(LayoutKind.Sequential)]
public struct StreamerStats {
  public ulong Desired, Queued, Running, ResidentChunks, ResidentBytes, BudgetBytes, Visible,
      Holes, Generated, Evicted, Updated;
  public int ViewComplete;  // nonzero: every wanted chunk is resident and visible
}

[StructLayout(LayoutKind.Sequential)]
public struct NavAgent {
  public double RadiusM;   // default 0.5
  public double HeightM;   // default 2
  public double ClimbM;    // default 0.6
  public double SlopeDeg;  // default 40, in (0, 90)
  public double DropM;     // default 3

  public static NavAgent Default() {
    NavAgent a = new NavAgent();
    Native.terrane_nav_agent_init(ref a);
    return a;
  }
}

public enum PathStatus : int { Ok = 0, Partial = 1, NoStart = 2, NoTarget = 3, Failed = 4 }

[StructLayout(LayoutKind.Sequential)]
public struct PathResult {
  public int Status;  // PathStatus
  public double LengthM;
  public uint Polygons;
  public PathStatus PathStatus { get { return (PathStatus)Status; } }
}

public enum BrushKind : int {
  Raise = 0, Lower = 1, Smooth = 2, Flatten = 3, Noise = 4,
  Dig = 10, Fill = 11, Restore = 12,
  Paint = 20, Unpaint = 21,
  Fell = 30, Plant = 31, Regrow = 32
}

/// <summary>terrane_brush as the library sees it; use Brush instead.</summary>
[StructLayout(LayoutKind.Sequential)]
public struct NativeBrush {
  public int Kind;
  public double XM, YM, ZM;
  public double RadiusM;
  public double Strength;
  public double FalloffStart;
  public double TargetM;
  public IntPtr Block;    // const char*
  public IntPtr Layer;    // const char*
  public IntPtr Species;  // const char*
  public double RegrowS;
  public double YawDeg;
}

[StructLayout(LayoutKind.Sequential)]
public struct WorldInfo {
  public ulong Seed;
  public ulong PresetHash;
  public ulong Commits;
  public double CellSizeM;
  public ulong HeightTiles;
  public ulong BlockOverrides;
  public ulong PaintedVertices;
  public ulong InstanceOverrides;
  public uint PendingStrokes;
}

// ------------------------------------------------------------------------------------------
// Handles: each native object freed exactly once (twice-disposed wrappers are harmless, and a
// disposed handle passed to the library is an ObjectDisposedException, never a dangling pointer).

public abstract class TerraneHandle : SafeHandle {
  // A handle this one needs alive (the preset under a query or streamer), released after it.
  SafeHandle dependency_;

  protected TerraneHandle(IntPtr h) : base(IntPtr.Zero, true) { SetHandle(h); }
  public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

  internal void Depend(SafeHandle other) {
    bool added = false;
    other.DangerousAddRef(ref added);
    if (added) dependency_ = other;
  }
  protected abstract void Free(IntPtr h);
  protected override bool ReleaseHandle() {
    Free(handle);
    if (dependency_ != null) {
      dependency_.DangerousRelease();
      dependency_ = null;
    }
    return true;
  }
}

public sealed class PresetHandle : TerraneHandle {
  internal PresetHandle(IntPtr h) : base(h) {}
  protected override void Free(IntPtr h) { Native.terrane_preset_free(h); }
}
public sealed class QueryHandle : TerraneHandle {
  internal QueryHandle(IntPtr h) : base(h) {}
  protected override void Free(IntPtr h) { Native.terrane_query_free(h); }
}
public sealed class StreamerHandle : TerraneHandle {
  internal StreamerHandle(IntPtr h) : base(h) {}
  protected override void Free(IntPtr h) { Native.terrane_streamer_free(h); }
}
public sealed class WorldHandle : TerraneHandle {
  internal WorldHandle(IntPtr h) : base(h) {}
  protected override void Free(IntPtr h) { Native.terrane_world_free(h); }
}

// ------------------------------------------------------------------------------------------
// Native: every function of terrane.h. size_t is UIntPtr; const char* arguments are
// NUL-terminated UTF-8 byte arrays (Utf8.Bytes); const char* results are IntPtr (the library's
// memory: read with Utf8.String, never free). Handles are taken as SafeHandles; the functions
// that make one write a plain IntPtr (wrapped only on success: the marshaller never holds a
// handle the call did not write).

public static class Native {
  public const string Library = "terrane";
  const CallingConvention Cdecl = CallingConvention.Cdecl;

  // Status, errors, version
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_status_name(int status);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_last_error();
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_version();
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern uint terrane_version_number();

  // Presets
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern UIntPtr terrane_builtin_preset_count();
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_builtin_preset_name(UIntPtr index);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_preset_load(byte[] nameOrPath, IntPtr[] overrides,
                                                  UIntPtr overrideCount, out IntPtr preset);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_preset_parse(byte[] json, UIntPtr length, byte[] source,
                                                   IntPtr[] overrides, UIntPtr overrideCount,
                                                   out IntPtr preset);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern void terrane_preset_free(IntPtr preset);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_preset_get_info(PresetHandle preset, out PresetInfo info);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_preset_name(PresetHandle preset);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_preset_layer_name(PresetHandle preset, UIntPtr index);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_preset_species_name(PresetHandle preset, UIntPtr index);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_preset_json(PresetHandle preset, [Out] byte[] buffer,
                                                  UIntPtr capacity, out UIntPtr count);

  // Height grids
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_heights(PresetHandle preset, double x0M, double z0M,
                                              int width, int height, double cellM, int threads,
                                              [Out] float[] output, UIntPtr capacity,
                                              out UIntPtr count);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern UIntPtr terrane_heights_bound(int width, int height);

  // Scatter
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_scatter(PresetHandle preset, double x0M, double z0M,
                                              double x1M, double z1M, [Out] Instance[] output,
                                              UIntPtr capacity, out UIntPtr count);

  // Bakes
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern void terrane_bake_options_init(ref NativeBakeOptions options);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_bake(PresetHandle preset, ref NativeBakeOptions options,
                                           out BakeResult result);

  // Queries
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_query_create(PresetHandle preset, out IntPtr query);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern void terrane_query_free(IntPtr query);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_query_height(QueryHandle query, double xM, double zM,
                                                   out double heightM);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_query_normal(QueryHandle query, double xM, double zM,
                                                   [Out] float[] normal);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_query_raycast(QueryHandle query, double[] origin,
                                                    double[] direction, double maxDistanceM,
                                                    out int hit, out RayHit result);

  // Streamer
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern void terrane_streamer_params_init(ref StreamerParams parameters);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_create(PresetHandle preset,
                                                      ref StreamerParams parameters,
                                                      out IntPtr streamer);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern void terrane_streamer_free(IntPtr streamer);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_streamer_last_error(StreamerHandle streamer);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_set_viewers(StreamerHandle streamer,
                                                           Viewer[] viewers, UIntPtr count);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_update(StreamerHandle streamer);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_poll(StreamerHandle streamer, uint maxChunks,
                                                    double maxMs, out UIntPtr delivered);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_events(StreamerHandle streamer,
                                                      [Out] ChunkEvent[] output,
                                                      UIntPtr capacity, out UIntPtr count);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_visible(StreamerHandle streamer,
                                                       [Out] VisibleChunk[] output,
                                                       UIntPtr capacity, out UIntPtr count);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_get_stats(StreamerHandle streamer,
                                                     out StreamerStats stats);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_chunk_info(StreamerHandle streamer, ChunkKey key,
                                                          out ChunkInfo info);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_chunk_mesh(StreamerHandle streamer, ChunkKey key,
                                                          [Out] float[] positions,
                                                          [Out] float[] normals,
                                                          [Out] float[] uvs,
                                                          [Out] float[] morphY,
                                                          UIntPtr vertexCapacity,
                                                          out UIntPtr count);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_indices(StreamerHandle streamer, int[] stitch,
                                                       [Out] uint[] output, UIntPtr capacity,
                                                       out UIntPtr count);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_chunk_instances(StreamerHandle streamer,
                                                               ChunkKey key,
                                                               [Out] Instance[] output,
                                                               UIntPtr capacity,
                                                               out UIntPtr count);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_query(StreamerHandle streamer,
                                                     out IntPtr query);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_streamer_set_world(StreamerHandle streamer,
                                                         WorldHandle world);

  // Navigation
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern void terrane_nav_agent_init(ref NavAgent agent);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_nav_path(PresetHandle preset, ref NavAgent agent,
                                               double fromXM, double fromZM, double toXM,
                                               double toZM, double marginM, int threads,
                                               [Out] double[] points, UIntPtr capacity,
                                               out UIntPtr count, out PathResult result);

  // Worlds
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_create(byte[] path, PresetHandle preset,
                                                   int overwrite, out IntPtr world);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_open(byte[] path, int readOnly,
                                                 out IntPtr world);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern void terrane_world_free(IntPtr world);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern IntPtr terrane_world_last_error(WorldHandle world);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_preset(WorldHandle world, out IntPtr preset);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern void terrane_brush_init(ref NativeBrush brush, int kind);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_apply(WorldHandle world, ref NativeBrush brush,
                                                  out int changed);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_undo(WorldHandle world, out int undone);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_commit(WorldHandle world, byte[] description,
                                                   out ulong seq);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_get_info(WorldHandle world, out WorldInfo info);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_heights(WorldHandle world, double x0M, double z0M,
                                                    int width, int height, double cellM,
                                                    int threads, [Out] float[] output,
                                                    UIntPtr capacity, out UIntPtr count);
  [DllImport(Library, CallingConvention = Cdecl)]
  public static extern Status terrane_world_query(WorldHandle world, out IntPtr query);
}

// ------------------------------------------------------------------------------------------
// UTF-8 strings across the boundary

public static class Utf8 {
  /// <summary>NUL-terminated UTF-8 bytes of s (null for null).</summary>
  public static byte[] Bytes(string s) {
    if (s == null) return null;
    int n = Encoding.UTF8.GetByteCount(s);
    byte[] b = new byte[n + 1];
    Encoding.UTF8.GetBytes(s, 0, s.Length, b, 0);
    return b;
  }

  /// <summary>The library's NUL-terminated UTF-8 string (null for NULL); not freed.</summary>
  public static string String(IntPtr p) {
    if (p == IntPtr.Zero) return null;
    int n = 0;
    while (Marshal.ReadByte(p, n) != 0) n++;
    byte[] b = new byte[n];
    Marshal.Copy(p, b, 0, n);
    return Encoding.UTF8.GetString(b);
  }

  // Unmanaged copies of strings for const char* fields and const char* const* arrays, freed on
  // Dispose.
  internal sealed class Block : IDisposable {
    readonly List<IntPtr> owned_ = new List<IntPtr>();

    public IntPtr Add(string s) {
      if (s == null) return IntPtr.Zero;
      byte[] b = Bytes(s);
      IntPtr p = Marshal.AllocHGlobal(b.Length);
      owned_.Add(p);
      Marshal.Copy(b, 0, p, b.Length);
      return p;
    }
    public IntPtr[] AddAll(string[] strings) {
      if (strings == null || strings.Length == 0) return null;
      IntPtr[] ptrs = new IntPtr[strings.Length];
      for (int i = 0; i < strings.Length; i++) {
        if (strings[i] == null) throw new ArgumentNullException("overrides[" + i + "]");
        ptrs[i] = Add(strings[i]);
      }
      return ptrs;
    }
    public void Dispose() {
      foreach (IntPtr p in owned_) Marshal.FreeHGlobal(p);
      owned_.Clear();
    }
  }
}

// ------------------------------------------------------------------------------------------
// Errors

internal static class Check {
  internal static string Describe(Status s, string message, ulong needed) {
    if (string.IsNullOrEmpty(message)) {
      message = "terrane: " + Utf8.String(Native.terrane_status_name((int)s));
    }
    if (s == Status.BufferTooSmall && message.IndexOf(needed.ToString()) < 0) {
      message += " (needs " + needed + " elements)";
    }
    return message;
  }

  // Throws for a non-OK status with the calling thread's last error.
  internal static void Ok(Status s, ulong needed = 0) {
    if (s == Status.Ok) return;
    throw new TerraneException(s, Describe(s, Utf8.String(Native.terrane_last_error()), needed),
                               needed);
  }
  internal static void Ok(Status s, StreamerHandle h, ulong needed = 0) {
    if (s == Status.Ok) return;
    string m = Utf8.String(Native.terrane_streamer_last_error(h));
    if (string.IsNullOrEmpty(m)) m = Utf8.String(Native.terrane_last_error());
    throw new TerraneException(s, Describe(s, m, needed), needed);
  }
  internal static void Ok(Status s, WorldHandle h, ulong needed = 0) {
    if (s == Status.Ok) return;
    string m = Utf8.String(Native.terrane_world_last_error(h));
    if (string.IsNullOrEmpty(m)) m = Utf8.String(Native.terrane_last_error());
    throw new TerraneException(s, Describe(s, m, needed), needed);
  }

  internal static UIntPtr Size(int n) { return new UIntPtr((uint)Math.Max(n, 0)); }
  internal static UIntPtr Length(Array a) { return a == null ? UIntPtr.Zero : Size(a.Length); }
}

// ------------------------------------------------------------------------------------------
// Presets

/// <summary>A loaded preset (terrane_preset): immutable; usable from any thread.</summary>
public sealed class Preset : IDisposable {
  public PresetHandle Handle { get; private set; }

  internal Preset(PresetHandle h) { Handle = h; }

  /// <summary>A builtin preset by name ("default", "alpine", ...) or a preset JSON file by path,
  /// with "a.b.c=value" overrides applied in order (the CLI's --set).</summary>
  public static Preset Load(string nameOrPath, params string[] overrides) {
    if (nameOrPath == null) throw new ArgumentNullException("nameOrPath");
    using (Utf8.Block block = new Utf8.Block()) {
      IntPtr[] ov = block.AddAll(overrides);
      IntPtr h = IntPtr.Zero;
      Status s = Native.terrane_preset_load(Utf8.Bytes(nameOrPath), ov, Check.Length(ov), out h);
      Check.Ok(s);
      return new Preset(new PresetHandle(h));
    }
  }

  /// <summary>A preset from JSON text; source names it in messages (null: "json").</summary>
  public static Preset Parse(string json, string source = null, params string[] overrides) {
    if (json == null) throw new ArgumentNullException("json");
    byte[] text = Encoding.UTF8.GetBytes(json);
    using (Utf8.Block block = new Utf8.Block()) {
      IntPtr[] ov = block.AddAll(overrides);
      IntPtr h = IntPtr.Zero;
      Status s = Native.terrane_preset_parse(text, new UIntPtr((uint)text.Length),
                                             Utf8.Bytes(source), ov, Check.Length(ov), out h);
      Check.Ok(s);
      return new Preset(new PresetHandle(h));
    }
  }

  /// <summary>The builtin preset names.</summary>
  public static string[] BuiltinNames() {
    int n = (int)Native.terrane_builtin_preset_count().ToUInt64();
    string[] names = new string[n];
    for (int i = 0; i < n; i++) {
      names[i] = Utf8.String(Native.terrane_builtin_preset_name(new UIntPtr((uint)i)));
    }
    return names;
  }

  public PresetInfo Info {
    get {
      PresetInfo info;
      Check.Ok(Native.terrane_preset_get_info(Handle, out info));
      return info;
    }
  }

  public string Name { get { return Utf8.String(Native.terrane_preset_name(Handle)); } }

  public string[] LayerNames {
    get {
      string[] names = new string[Info.SplatLayers];
      for (int i = 0; i < names.Length; i++) {
        names[i] = Utf8.String(Native.terrane_preset_layer_name(Handle, new UIntPtr((uint)i)));
      }
      return names;
    }
  }

  public string[] SpeciesNames {
    get {
      string[] names = new string[Info.Species];
      for (int i = 0; i < names.Length; i++) {
        names[i] = Utf8.String(Native.terrane_preset_species_name(Handle, new UIntPtr((uint)i)));
      }
      return names;
    }
  }

  /// <summary>The canonical JSON (after overrides; sorted keys, compact).</summary>
  public string Json {
    get {
      UIntPtr count;
      Status s = Native.terrane_preset_json(Handle, null, UIntPtr.Zero, out count);
      if (s != Status.BufferTooSmall) Check.Ok(s);
      byte[] buf = new byte[(int)count.ToUInt64()];
      if (buf.Length > 0) Check.Ok(Native.terrane_preset_json(Handle, buf, Check.Length(buf), out count));
      return Encoding.UTF8.GetString(buf, 0, (int)count.ToUInt64());
    }
  }

  public void Dispose() { Handle.Dispose(); }
}

// ------------------------------------------------------------------------------------------
// The free functions: heights, scatter, bakes, paths

/// <summary>Options of TerraneApi.Bake (terrane generate); null strings and zeros are the
/// defaults.</summary>
public sealed class BakeOptions {
  public string OutDir;   // null: "out"
  public string Formats;  // "png16,preview", "exr", "glb", ...; null: default
  public string Engine;   // "unity", "unreal", "godot"; null: none
  public string Erode;    // "thermal,droplets"; null: none
  public int Size;        // samples per side; 0: the preset's
  public int Width, Height;
  public double CellM;
  public double OriginXM, OriginZM;
  public ulong? Seed;
  public int Tiles;
  public int Lod;
  public int Threads;
}

public sealed class NavPathResult {
  public PathResult Result;
  /// <summary>x, y, z of each point of the straight path.</summary>
  public double[] Points;
  public int PointCount { get { return Points.Length / 3; } }
}

/// <summary>The C API's free functions. (Named TerraneApi, not Terrane: a class named like its
/// namespace cannot be reached as Terrane.X from code outside the namespace.)</summary>
public static class TerraneApi {
  public static string Version { get { return Utf8.String(Native.terrane_version()); } }
  public static uint VersionNumber { get { return Native.terrane_version_number(); } }
  public static string StatusName(Status s) {
    return Utf8.String(Native.terrane_status_name((int)s));
  }
  /// <summary>The message of the last failed call on this thread ("" when none).</summary>
  public static string LastError { get { return Utf8.String(Native.terrane_last_error()); } }

  /// <summary>Heights [m] of the world's surface on width x height samples at
  /// (x0 + i * cell, z0 + j * cell), row-major (j rows); cell 0: the preset's; threads 0: all
  /// cores (the values never depend on it).</summary>
  public static float[] Heights(Preset preset, double x0M, double z0M, int width, int height,
                                double cellM = 0, int threads = 0) {
    ulong bound = Native.terrane_heights_bound(width, height).ToUInt64();
    // Sizes outside the limits: let the library name the argument.
    float[] output = bound == 0 ? null : new float[bound];
    Heights(preset, x0M, z0M, width, height, output, cellM, threads);
    return output;
  }

  /// <summary>Heights into the caller's array (at least width * height floats; a smaller one is
  /// a TerraneException with Status.BufferTooSmall and Needed).</summary>
  public static void Heights(Preset preset, double x0M, double z0M, int width, int height,
                             float[] output, double cellM = 0, int threads = 0) {
    UIntPtr count;
    Status s = Native.terrane_heights(preset.Handle, x0M, z0M, width, height, cellM, threads,
                                      output, Check.Length(output), out count);
    Check.Ok(s, count.ToUInt64());
  }

  /// <summary>The scatter instances in [x0, x1) x [z0, z1).</summary>
  public static Instance[] Scatter(Preset preset, double x0M, double z0M, double x1M,
                                   double z1M) {
    // Each call generates the instances: try a buffer that holds most requests, and call again
    // with the exact size only when it was too small.
    Instance[] output = new Instance[4096];
    for (int attempt = 0;; attempt++) {
      UIntPtr count;
      Status s = Native.terrane_scatter(preset.Handle, x0M, z0M, x1M, z1M, output,
                                        Check.Length(output), out count);
      ulong n = count.ToUInt64();
      if (s == Status.BufferTooSmall && attempt == 0) {
        output = new Instance[n];
        continue;
      }
      Check.Ok(s, n);
      if ((ulong)output.Length != n) Array.Resize(ref output, (int)n);
      return output;
    }
  }

  /// <summary>What `terrane generate` does: files under options.OutDir and the sidecar.</summary>
  public static BakeResult Bake(Preset preset, BakeOptions options) {
    if (options == null) options = new BakeOptions();
    NativeBakeOptions o = new NativeBakeOptions();
    Native.terrane_bake_options_init(ref o);
    using (Utf8.Block block = new Utf8.Block()) {
      o.OutDir = block.Add(options.OutDir);
      o.Formats = block.Add(options.Formats);
      o.Engine = block.Add(options.Engine);
      o.Erode = block.Add(options.Erode);
      o.Size = options.Size;
      o.Width = options.Width;
      o.Height = options.Height;
      o.CellM = options.CellM;
      o.OriginXM = options.OriginXM;
      o.OriginZM = options.OriginZM;
      o.HasSeed = options.Seed.HasValue ? 1 : 0;
      o.Seed = options.Seed.HasValue ? options.Seed.Value : 0;
      o.Tiles = options.Tiles;
      o.Lod = options.Lod;
      o.Threads = options.Threads;
      BakeResult result;
      Check.Ok(Native.terrane_bake(preset.Handle, ref o, out result));
      return result;
    }
  }

  /// <summary>The walking path `terrane path` finds (agent null: the defaults; margin 0:
  /// 32 m). An unreachable target is Result.PathStatus, not an exception.</summary>
  public static NavPathResult NavPath(Preset preset, double fromXM, double fromZM, double toXM,
                                      double toZM, NavAgent? agent = null, double marginM = 0,
                                      int threads = 0) {
    NavAgent a = agent.HasValue ? agent.Value : NavAgent.Default();
    // Each call builds the navmesh: start with room for most paths, retry once with the size.
    double[] points = new double[3 * 256];
    for (int attempt = 0;; attempt++) {
      UIntPtr count;
      PathResult result;
      Status s = Native.terrane_nav_path(preset.Handle, ref a, fromXM, fromZM, toXM, toZM,
                                         marginM, threads, points,
                                         Check.Size(points.Length / 3), out count, out result);
      ulong n = count.ToUInt64();
      if (s == Status.BufferTooSmall && attempt == 0) {
        points = new double[3 * n];
        continue;
      }
      Check.Ok(s, n);
      double[] exact = new double[3 * n];
      Array.Copy(points, exact, exact.Length);
      NavPathResult r = new NavPathResult();
      r.Result = result;
      r.Points = exact;
      return r;
    }
  }
}

// ------------------------------------------------------------------------------------------
// Queries

/// <summary>Exact answers on the level-0 surface (terrane_query); usable from any number of
/// threads at once.</summary>
public sealed class Query : IDisposable {
  public QueryHandle Handle { get; private set; }

  internal Query(QueryHandle h) { Handle = h; }

  public static Query Create(Preset preset) {
    IntPtr p = IntPtr.Zero;
    Check.Ok(Native.terrane_query_create(preset.Handle, out p));
    QueryHandle h = new QueryHandle(p);
    // The C API does not say whether the query outlives its preset: keep the preset alive.
    h.Depend(preset.Handle);
    return new Query(h);
  }

  public double Height(double xM, double zM) {
    double y;
    Check.Ok(Native.terrane_query_height(Handle, xM, zM, out y));
    return y;
  }

  /// <summary>The unit normal (x, y, z; +y up).</summary>
  public float[] Normal(double xM, double zM) {
    float[] n = new float[3];
    Check.Ok(Native.terrane_query_normal(Handle, xM, zM, n));
    return n;
  }

  /// <summary>The first hit along origin + t * direction (0 &lt;= t &lt;= maxDistanceM).</summary>
  public bool Raycast(double[] origin, double[] direction, double maxDistanceM, out RayHit hit) {
    if (origin == null || origin.Length < 3) throw new ArgumentException("origin: 3 doubles");
    if (direction == null || direction.Length < 3) {
      throw new ArgumentException("direction: 3 doubles");
    }
    int h;
    Check.Ok(Native.terrane_query_raycast(Handle, origin, direction, maxDistanceM, out h,
                                          out hit));
    return h != 0;
  }

  public void Dispose() { Handle.Dispose(); }
}

// ------------------------------------------------------------------------------------------
// Streamer

public sealed class ChunkMesh {
  public int VertexCount;
  public float[] Positions;  // x, y, z relative to ChunkInfo.OriginXM / OriginZM
  public float[] Normals;    // x, y, z
  public float[] Uvs;        // u, v (world x, z wrapped at 4096 m)
  public float[] MorphY;     // the parent level's height at each vertex
}

/// <summary>The streamed world around moving viewers (terrane_streamer). Owner thread: once a
/// frame SetViewers, Update, Poll; then read Events and Visible.</summary>
public sealed class Streamer : IDisposable {
  public StreamerHandle Handle { get; private set; }

  Streamer(StreamerHandle h) { Handle = h; }

  public static Streamer Create(Preset preset, StreamerParams parameters) {
    IntPtr p = IntPtr.Zero;
    Check.Ok(Native.terrane_streamer_create(preset.Handle, ref parameters, out p));
    StreamerHandle h = new StreamerHandle(p);
    // As for queries: the preset's native object stays alive as long as the streamer.
    h.Depend(preset.Handle);
    return new Streamer(h);
  }
  public static Streamer Create(Preset preset) {
    return Create(preset, StreamerParams.Default());
  }

  /// <summary>The message of the last failed call on this streamer ("" when none).</summary>
  public string LastError { get { return Utf8.String(Native.terrane_streamer_last_error(Handle)); } }

  public void SetViewers(params Viewer[] viewers) {
    Check.Ok(Native.terrane_streamer_set_viewers(Handle, viewers, Check.Length(viewers)), Handle);
  }

  public void Update() { Check.Ok(Native.terrane_streamer_update(Handle), Handle); }

  /// <summary>Takes at most maxChunks finished chunks (0: no limit) within maxMs; returns how
  /// many.</summary>
  public int Poll(uint maxChunks = 0, double maxMs = 2.0) {
    UIntPtr delivered;
    Check.Ok(Native.terrane_streamer_poll(Handle, maxChunks, maxMs, out delivered), Handle);
    return (int)delivered.ToUInt64();
  }

  /// <summary>The events since the start of the last update, in order.</summary>
  public ChunkEvent[] Events() {
    UIntPtr count;
    Status s = Native.terrane_streamer_events(Handle, null, UIntPtr.Zero, out count);
    if (s != Status.BufferTooSmall) {
      Check.Ok(s, Handle);
      return new ChunkEvent[0];
    }
    ChunkEvent[] output = new ChunkEvent[count.ToUInt64()];
    s = Native.terrane_streamer_events(Handle, output, Check.Length(output), out count);
    Check.Ok(s, Handle, count.ToUInt64());
    return output;
  }

  /// <summary>The visible set after the last Update or Poll, with stitch masks.</summary>
  public VisibleChunk[] Visible() {
    UIntPtr count;
    Status s = Native.terrane_streamer_visible(Handle, null, UIntPtr.Zero, out count);
    if (s != Status.BufferTooSmall) {
      Check.Ok(s, Handle);
      return new VisibleChunk[0];
    }
    VisibleChunk[] output = new VisibleChunk[count.ToUInt64()];
    s = Native.terrane_streamer_visible(Handle, output, Check.Length(output), out count);
    Check.Ok(s, Handle, count.ToUInt64());
    return output;
  }

  public StreamerStats Stats() {
    StreamerStats st;
    Check.Ok(Native.terrane_streamer_get_stats(Handle, out st), Handle);
    return st;
  }

  /// <summary>A resident chunk's info (InvalidArgument when it is not resident).</summary>
  public ChunkInfo ChunkInfo(ChunkKey key) {
    ChunkInfo info;
    Check.Ok(Native.terrane_streamer_chunk_info(Handle, key, out info), Handle);
    return info;
  }

  /// <summary>A resident chunk's vertex arrays (those asked for; the others null).</summary>
  public ChunkMesh ChunkMesh(ChunkKey key, bool positions = true, bool normals = true,
                             bool uvs = true, bool morphY = true) {
    int n = (int)ChunkInfo(key).Vertices;
    ChunkMesh m = new ChunkMesh();
    m.Positions = positions ? new float[3 * n] : null;
    m.Normals = normals ? new float[3 * n] : null;
    m.Uvs = uvs ? new float[2 * n] : null;
    m.MorphY = morphY ? new float[n] : null;
    m.VertexCount = ChunkMesh(key, m.Positions, m.Normals, m.Uvs, m.MorphY);
    return m;
  }

  /// <summary>Into the caller's arrays (null skips one), each for the same number of vertices
  /// (positions and normals 3 floats each, uvs 2, morphY 1); returns the vertex count.</summary>
  public int ChunkMesh(ChunkKey key, float[] positions, float[] normals, float[] uvs,
                       float[] morphY) {
    long capacity = long.MaxValue;
    if (positions != null) capacity = Math.Min(capacity, positions.Length / 3);
    if (normals != null) capacity = Math.Min(capacity, normals.Length / 3);
    if (uvs != null) capacity = Math.Min(capacity, uvs.Length / 2);
    if (morphY != null) capacity = Math.Min(capacity, morphY.Length);
    if (capacity == long.MaxValue) capacity = 0;
    UIntPtr count;
    Status s = Native.terrane_streamer_chunk_mesh(Handle, key, positions, normals, uvs, morphY,
                                                  new UIntPtr((ulong)capacity), out count);
    Check.Ok(s, Handle, count.ToUInt64());
    return (int)count.ToUInt64();
  }

  /// <summary>The triangle list (counter-clockwise seen from +y) for a stitch mask: the same for
  /// every chunk of this streamer.</summary>
  public uint[] Indices(int[] stitch) {
    if (stitch == null || stitch.Length != 4) throw new ArgumentException("stitch: 4 ints");
    UIntPtr count;
    Status s = Native.terrane_streamer_indices(Handle, stitch, null, UIntPtr.Zero, out count);
    if (s != Status.BufferTooSmall) {
      Check.Ok(s, Handle);
      return new uint[0];
    }
    uint[] output = new uint[count.ToUInt64()];
    s = Native.terrane_streamer_indices(Handle, stitch, output, Check.Length(output), out count);
    Check.Ok(s, Handle, count.ToUInt64());
    return output;
  }
  public uint[] Indices(VisibleChunk chunk) { return Indices(chunk.Stitch()); }

  /// <summary>A level-0 chunk's scatter instances (streamers with surface data).</summary>
  public Instance[] ChunkInstances(ChunkKey key) {
    UIntPtr count;
    Status s = Native.terrane_streamer_chunk_instances(Handle, key, null, UIntPtr.Zero, out count);
    if (s != Status.BufferTooSmall) {
      Check.Ok(s, Handle);
      return new Instance[0];
    }
    Instance[] output = new Instance[count.ToUInt64()];
    s = Native.terrane_streamer_chunk_instances(Handle, key, output, Check.Length(output),
                                                out count);
    Check.Ok(s, Handle, count.ToUInt64());
    return output;
  }

  /// <summary>Queries with the streamer's current edits.</summary>
  public Query Query() {
    IntPtr h = IntPtr.Zero;
    Check.Ok(Native.terrane_streamer_query(Handle, out h), Handle);
    return new Query(new QueryHandle(h));
  }

  /// <summary>Streams the world's edits; call again after strokes to see them (the touched
  /// chunks come back as Updated events).</summary>
  public void SetWorld(World world) {
    if (world == null) throw new ArgumentNullException("world");
    Check.Ok(Native.terrane_streamer_set_world(Handle, world.Handle), Handle);
  }

  public void Dispose() { Handle.Dispose(); }
}

// ------------------------------------------------------------------------------------------
// Worlds

/// <summary>A brush stroke; Brush.Of(kind) has the library's defaults for the kind.</summary>
public sealed class Brush {
  public BrushKind Kind;
  public double XM, YM, ZM;    // centre; y only for block brushes
  public double RadiusM;
  public double Strength;
  public double FalloffStart;
  public double TargetM;       // flatten's height
  public string Block;         // fill: a block name of the voxel palette
  public string Layer;         // paint: a splat layer name
  public string Species;       // plant: a species name
  public double RegrowS;       // fell: seconds until the instances come back; 0: never
  public double YawDeg;        // plant: rotation about +y

  public static Brush Of(BrushKind kind) {
    NativeBrush n = new NativeBrush();
    Native.terrane_brush_init(ref n, (int)kind);
    Brush b = new Brush();
    b.Kind = kind;
    b.XM = n.XM; b.YM = n.YM; b.ZM = n.ZM;
    b.RadiusM = n.RadiusM;
    b.Strength = n.Strength;
    b.FalloffStart = n.FalloffStart;
    b.TargetM = n.TargetM;
    return b;
  }
}

/// <summary>A world file: a preset + seed + edits (terrane_world). Owner thread.</summary>
public sealed class World : IDisposable {
  public WorldHandle Handle { get; private set; }

  World(WorldHandle h) { Handle = h; }

  public static World Create(string path, Preset preset, bool overwrite = false) {
    IntPtr h = IntPtr.Zero;
    Check.Ok(Native.terrane_world_create(Utf8.Bytes(path), preset.Handle, overwrite ? 1 : 0,
                                         out h));
    return new World(new WorldHandle(h));
  }

  public static World Open(string path, bool readOnly = false) {
    IntPtr h = IntPtr.Zero;
    Check.Ok(Native.terrane_world_open(Utf8.Bytes(path), readOnly ? 1 : 0, out h));
    return new World(new WorldHandle(h));
  }

  public string LastError { get { return Utf8.String(Native.terrane_world_last_error(Handle)); } }

  /// <summary>The world's preset (with its recorded seed).</summary>
  public Preset Preset() {
    IntPtr h = IntPtr.Zero;
    Check.Ok(Native.terrane_world_preset(Handle, out h), Handle);
    return new Preset(new PresetHandle(h));
  }

  /// <summary>Applies a stroke (not yet to the file); true when it changed anything.</summary>
  public bool Apply(Brush brush) {
    if (brush == null) throw new ArgumentNullException("brush");
    using (Utf8.Block block = new Utf8.Block()) {
      NativeBrush n = new NativeBrush();
      n.Kind = (int)brush.Kind;
      n.XM = brush.XM; n.YM = brush.YM; n.ZM = brush.ZM;
      n.RadiusM = brush.RadiusM;
      n.Strength = brush.Strength;
      n.FalloffStart = brush.FalloffStart;
      n.TargetM = brush.TargetM;
      n.Block = block.Add(brush.Block);
      n.Layer = block.Add(brush.Layer);
      n.Species = block.Add(brush.Species);
      n.RegrowS = brush.RegrowS;
      n.YawDeg = brush.YawDeg;
      int changed;
      Check.Ok(Native.terrane_world_apply(Handle, ref n, out changed), Handle);
      return changed != 0;
    }
  }

  /// <summary>Takes the newest stroke back; false when there was none.</summary>
  public bool Undo() {
    int undone;
    Check.Ok(Native.terrane_world_undo(Handle, out undone), Handle);
    return undone != 0;
  }

  /// <summary>Writes the edits in one transaction; returns the commit's number.</summary>
  public ulong Commit(string description = null) {
    ulong seq;
    Check.Ok(Native.terrane_world_commit(Handle, Utf8.Bytes(description), out seq), Handle);
    return seq;
  }

  public WorldInfo Info {
    get {
      WorldInfo info;
      Check.Ok(Native.terrane_world_get_info(Handle, out info), Handle);
      return info;
    }
  }

  /// <summary>Heights of the edited world, as TerraneApi.Heights.</summary>
  public float[] Heights(double x0M, double z0M, int width, int height, double cellM = 0,
                         int threads = 0) {
    ulong bound = Native.terrane_heights_bound(width, height).ToUInt64();
    float[] output = bound == 0 ? null : new float[bound];
    Heights(x0M, z0M, width, height, output, cellM, threads);
    return output;
  }

  public void Heights(double x0M, double z0M, int width, int height, float[] output,
                      double cellM = 0, int threads = 0) {
    UIntPtr count;
    Status s = Native.terrane_world_heights(Handle, x0M, z0M, width, height, cellM, threads,
                                            output, Check.Length(output), out count);
    Check.Ok(s, Handle, count.ToUInt64());
  }

  /// <summary>Queries of the edited world as it is now.</summary>
  public Query Query() {
    IntPtr h = IntPtr.Zero;
    Check.Ok(Native.terrane_world_query(Handle, out h), Handle);
    return new Query(new QueryHandle(h));
  }

  public void Dispose() { Handle.Dispose(); }
}

}  // namespace Terrane
