// The C# binding against the C API's own results: heights and streamed chunks bit for bit with
// the reference files the capi_reference fixture writes (a C program over terrane.h), struct
// layouts, errors, and one call of every wrapper.
//
//   mcs -out:terrane_test.exe Terrane.cs tests/TerraneTest.cs
//   LD_LIBRARY_PATH=<dir of libterrane.so> mono terrane_test.exe REFERENCE_DIR
//
// Prints "ok - ..." or "FAIL - ..." per check; exits 1 when any check failed.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using Terrane;

static class TerraneTest {
  static int failures_ = 0;
  static int checks_ = 0;

  static void Check(bool ok, string what) {
    checks_++;
    if (ok) {
      Console.WriteLine("ok - " + what);
    } else {
      failures_++;
      Console.WriteLine("FAIL - " + what);
    }
  }

  // Runs one group of checks; an exception fails the group with its message.
  static void Group(string name, Action body) {
    Stopwatch clock = Stopwatch.StartNew();
    try {
      body();
      Console.WriteLine("# " + name + ": " + clock.ElapsedMilliseconds + " ms");
    } catch (Exception e) {
      checks_++;
      failures_++;
      Console.WriteLine("FAIL - " + name + ": " + e.GetType().Name + ": " + e.Message);
    }
  }

  static TerraneException Throws(Action body) {
    try {
      body();
    } catch (TerraneException e) {
      return e;
    }
    return null;
  }

  static byte[] Bytes(float[] values) {
    byte[] b = new byte[values.Length * 4];
    Buffer.BlockCopy(values, 0, b, 0, b.Length);
    if (!BitConverter.IsLittleEndian) {
      for (int i = 0; i < b.Length; i += 4) Array.Reverse(b, i, 4);
    }
    return b;
  }

  static bool SameBytes(byte[] a, byte[] b, out string where) {
    where = "";
    if (a.Length != b.Length) {
      where = a.Length + " vs " + b.Length + " bytes";
      return false;
    }
    for (int i = 0; i < a.Length; i++) {
      if (a[i] != b[i]) {
        where = "first difference at byte " + i;
        return false;
      }
    }
    return true;
  }

  static void CompareHeights(string referenceDir, string file, float[] heights) {
    byte[] expected = File.ReadAllBytes(Path.Combine(referenceDir, file));
    string where;
    bool same = SameBytes(Bytes(heights), expected, out where);
    Check(same, "heights equal " + file + " bit for bit (" + heights.Length + " floats)" +
                    (same ? "" : ": " + where));
  }

  static void Layouts() {
    // Sizes of the C structs on LP64 targets (x86-64, arm64; natural alignment): the same
    // numbers as the static_asserts of src/capi/shared_library.cpp.
    Check(Marshal.SizeOf(typeof(PresetInfo)) == 72, "sizeof terrane_preset_info == 72");
    Check(Marshal.SizeOf(typeof(Instance)) == 64, "sizeof terrane_instance == 64");
    Check(Marshal.OffsetOf(typeof(Instance), "Species").ToInt32() == 44 &&
              Marshal.OffsetOf(typeof(Instance), "Id").ToInt32() == 48,
          "terrane_instance offsets (species 44, id 48)");
    Check(Marshal.SizeOf(typeof(NativeBakeOptions)) == 104, "sizeof terrane_bake_options == 104");
    Check(Marshal.SizeOf(typeof(BakeResult)) == 48, "sizeof terrane_bake_result == 48");
    Check(Marshal.SizeOf(typeof(RayHit)) == 48, "sizeof terrane_ray_hit == 48");
    Check(Marshal.SizeOf(typeof(StreamerParams)) == 48, "sizeof terrane_streamer_params == 48");
    Check(Marshal.SizeOf(typeof(Viewer)) == 48, "sizeof terrane_viewer == 48");
    Check(Marshal.SizeOf(typeof(ChunkKey)) == 24, "sizeof terrane_chunk_key == 24");
    Check(Marshal.SizeOf(typeof(ChunkEvent)) == 32, "sizeof terrane_chunk_event == 32");
    Check(Marshal.SizeOf(typeof(VisibleChunk)) == 40, "sizeof terrane_visible_chunk == 40");
    Check(Marshal.SizeOf(typeof(ChunkInfo)) == 40, "sizeof terrane_chunk_info == 40");
    Check(Marshal.SizeOf(typeof(StreamerStats)) == 96, "sizeof terrane_streamer_stats == 96");
    Check(Marshal.SizeOf(typeof(NavAgent)) == 40, "sizeof terrane_nav_agent == 40");
    Check(Marshal.SizeOf(typeof(PathResult)) == 24, "sizeof terrane_path_result == 24");
    Check(Marshal.SizeOf(typeof(NativeBrush)) == 104, "sizeof terrane_brush == 104");
    Check(Marshal.SizeOf(typeof(WorldInfo)) == 72, "sizeof terrane_world_info == 72");
  }

  static void Version() {
    Check(TerraneApi.Version == "0.1.0", "version is 0.1.0 (" + TerraneApi.Version + ")");
    Check(TerraneApi.VersionNumber == 100, "version number 100 (" + TerraneApi.VersionNumber + ")");
    Check(TerraneApi.StatusName(Status.BufferTooSmall) == "buffer_too_small",
          "status name of BufferTooSmall");
    string[] names = Preset.BuiltinNames();
    Check(Array.IndexOf(names, "default") >= 0 && Array.IndexOf(names, "alpine") >= 0,
          "builtin presets include default and alpine (" + string.Join(", ", names) + ")");
  }

  static void Heights(string referenceDir) {
    using (Preset preset = Preset.Load("default")) {
      PresetInfo info = preset.Info;
      Check(preset.Name == "default", "preset name is default");
      Check(info.CellSizeM > 0, "preset info: cell " + info.CellSizeM + " m, seed " + info.Seed +
                                     ", " + info.Species + " species");
      Check(preset.SpeciesNames.Length == info.Species, "species names: " +
                                                           string.Join(", ", preset.SpeciesNames));
      Check(preset.Json.StartsWith("{"), "canonical JSON");
      float[] h = TerraneApi.Heights(preset, 1000, -2000, 300, 200);
      CompareHeights(referenceDir, "heights_default.f32", h);
      float[] into = new float[300 * 200 + 5];
      TerraneApi.Heights(preset, 1000, -2000, 300, 200, into, 0, 1);
      float[] head = new float[300 * 200];
      Array.Copy(into, head, head.Length);
      CompareHeights(referenceDir, "heights_default.f32", head);

      // A query at a vertex of the world's lattice is that vertex's height (the grid above
      // starts off the lattice: x0 1000 is no multiple of the 30 m cell).
      using (Query q = Query.Create(preset)) {
        double x = 33 * info.CellSizeM, z = -67 * info.CellSizeM;
        float vertex = TerraneApi.Heights(preset, x, z, 1, 1)[0];
        double y = q.Height(x, z);
        Check(y == (double)vertex, "query height at a lattice vertex " + y + " == heights " +
                                       vertex);
        float[] n = q.Normal(x, z);
        Check(n[1] > 0 && Math.Abs(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1) < 1e-4,
              "query normal is a unit vector pointing up");
        RayHit hit;
        bool got = q.Raycast(new double[] { x, y + 100, z }, new double[] { 0, -1, 0 }, 1000,
                             out hit);
        Check(got && Math.Abs(hit.DistanceM - 100) < 1e-3,
              "raycast down from 100 m above hits at " + hit.DistanceM + " m");
      }
    }
    using (Preset alpine = Preset.Load("alpine", "seed=7")) {
      Check(alpine.Info.Seed == 7, "override seed=7 applied");
      CompareHeights(referenceDir, "heights_alpine.f32",
                     TerraneApi.Heights(alpine, 0, 0, 128, 128, 2));
    }
  }

  static void Streaming(string referenceDir) {
    Dictionary<ChunkKey, string> expected = new Dictionary<ChunkKey, string>();
    foreach (string line in File.ReadAllLines(Path.Combine(referenceDir, "chunks.txt"))) {
      string[] f = line.Split(new char[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
      if (f.Length != 4) continue;
      expected[new ChunkKey(long.Parse(f[0]), long.Parse(f[1]), int.Parse(f[2]))] = f[3];
    }
    Check(expected.Count > 0, "chunks.txt holds " + expected.Count + " chunks");

    using (Preset preset = Preset.Load("default")) {
      StreamerParams p = StreamerParams.Default();
      Check(p.ChunkCells == 128 && p.ViewDistanceM == 2000, "streamer defaults (128 cells, 2000 m)");
      p.ChunkCells = 16;
      p.ViewDistanceM = 3000;
      p.Threads = 0;
      p.Surface = 0;
      p.WorkerPriority = 2;  // normal: other tests run beside this one on the same cores
      using (Streamer s = Streamer.Create(preset, p)) {
        s.SetViewers(new Viewer(100, 0, 100));
        Stopwatch clock = Stopwatch.StartNew();
        int ready = 0;
        StreamerStats stats;
        while (true) {
          s.Update();
          s.Poll(0, 50);
          foreach (ChunkEvent e in s.Events()) {
            if (e.EventKind == ChunkEventKind.Ready) ready++;
          }
          stats = s.Stats();
          if (stats.ViewComplete != 0) break;
          if (clock.Elapsed.TotalSeconds > 120) break;
          System.Threading.Thread.Sleep(1);  // a frame's wait: Poll never waits for the workers
        }
        Check(stats.ViewComplete != 0, "view complete in " + clock.ElapsedMilliseconds + " ms (" +
                                           stats.Generated + " generated, " + ready +
                                           " ready events)");
        VisibleChunk[] visible = s.Visible();
        Check((ulong)visible.Length == stats.Visible, "visible " + visible.Length + " == stats " +
                                                        stats.Visible);
        int same = 0;
        List<string> problems = new List<string>();
        HashSet<ChunkKey> seen = new HashSet<ChunkKey>();
        foreach (VisibleChunk v in visible) {
          seen.Add(v.Key);
          string hash = s.ChunkInfo(v.Key).ContentHash.ToString("x16");
          string want;
          if (!expected.TryGetValue(v.Key, out want)) {
            problems.Add("extra " + v.Key);
          } else if (want != hash) {
            problems.Add(v.Key + ": " + hash + " != " + want);
          } else {
            same++;
          }
        }
        foreach (ChunkKey k in expected.Keys) {
          if (!seen.Contains(k)) problems.Add("missing " + k);
        }
        Check(problems.Count == 0 && same == expected.Count,
              "visible chunks and content hashes equal chunks.txt (" + same + " equal" +
                  (problems.Count == 0 ? "" : "; " + string.Join("; ", problems.ToArray())) + ")");

        VisibleChunk first = visible[0];
        ChunkInfo info = s.ChunkInfo(first.Key);
        int n1 = p.ChunkCells + 1;
        Check(info.Vertices == n1 * n1, "chunk " + first.Key + ": " + info.Vertices +
                                            " vertices == (N+1)^2");
        ChunkMesh mesh = s.ChunkMesh(first.Key);
        Check(mesh.VertexCount == n1 * n1 && mesh.Positions.Length == 3 * n1 * n1 &&
                  mesh.Uvs.Length == 2 * n1 * n1 && mesh.MorphY.Length == n1 * n1,
              "chunk mesh: " + mesh.VertexCount + " vertices");
        float lo = float.MaxValue, hi = float.MinValue;
        for (int i = 0; i < mesh.VertexCount; i++) {
          lo = Math.Min(lo, mesh.Positions[3 * i + 1]);
          hi = Math.Max(hi, mesh.Positions[3 * i + 1]);
        }
        Check(lo == info.HeightMinM && hi == info.HeightMaxM,
              "mesh heights span the info's " + info.HeightMinM + " .. " + info.HeightMaxM);
        uint[] indices = s.Indices(first);
        bool inRange = indices.Length > 0 && indices.Length % 3 == 0;
        foreach (uint i in indices) {
          if (i >= info.Vertices) inRange = false;
        }
        Check(inRange, "indices: " + indices.Length + " (a multiple of 3, each < vertices)");
        float[] small = new float[3];
        TerraneException e2 = Throws(delegate { s.ChunkMesh(first.Key, small, null, null, null); });
        Check(e2 != null && e2.Status == Status.BufferTooSmall && e2.Needed == info.Vertices,
              "chunk mesh into a too-small array: BufferTooSmall, needs " +
                  (e2 == null ? "?" : e2.Needed.ToString()));
        TerraneException e3 =
            Throws(delegate { s.ChunkInfo(new ChunkKey(1L << 40, 0, 0)); });
        Check(e3 != null && e3.Status == Status.InvalidArgument && e3.Message.Length > 0 &&
                  s.LastError == e3.Message,
              "chunk_info of a chunk not resident: InvalidArgument, the streamer's message: " +
                  (e3 == null ? "none" : e3.Message));
        using (Query q = s.Query()) {
          double y = q.Height(info.OriginXM, info.OriginZM);
          Check(Math.Abs(y - mesh.Positions[1]) < 1e-3 || first.Key.Level > 0,
                "streamer query at the chunk's origin " + y + " ~ vertex 0 " + mesh.Positions[1]);
        }
      }
    }
  }

  static void Errors() {
    TerraneException e = Throws(delegate { Preset.Load("no_such_preset_xyz"); });
    Check(e != null && e.Message.Contains("no_such_preset_xyz"),
          "unknown preset throws, naming it: " + (e == null ? "no exception" : e.Status + ": " +
                                                                              e.Message));
    Check(e != null && TerraneApi.LastError == e.Message, "terrane_last_error holds the message");
    e = Throws(delegate { Preset.Load("default", "world.no_such_key=1"); });
    Check(e != null && e.Message.Contains("no_such_key"), "bad override throws: " +
                                                             (e == null ? "none" : e.Message));
    e = Throws(delegate { Preset.Parse("{ not json", "inline"); });
    Check(e != null && e.Status == Status.Parse, "malformed JSON: Parse (" +
                                                     (e == null ? "none" : e.Message) + ")");
    using (Preset preset = Preset.Load("default")) {
      e = Throws(delegate { TerraneApi.Heights(preset, 0, 0, 0, 10); });
      Check(e != null && e.Status == Status.InvalidArgument,
            "width 0 throws: " + (e == null ? "none" : e.Status + ": " + e.Message));
      e = Throws(delegate { TerraneApi.Heights(preset, 0, 0, 16, 16, -1.0); });
      Check(e != null && e.Status == Status.InvalidArgument,
            "cell -1 throws: " + (e == null ? "none" : e.Message));
      float[] small = new float[10];
      e = Throws(delegate { TerraneApi.Heights(preset, 0, 0, 16, 16, small); });
      Check(e != null && e.Status == Status.BufferTooSmall && e.Needed == 256,
            "10 floats for 16 x 16: BufferTooSmall, needs " +
                (e == null ? "?" : e.Needed + " (" + e.Message + ")"));
      bool untouched = true;
      foreach (float f in small) untouched &= f == 0;
      Check(untouched, "a too-small buffer is left as it was");
      PresetHandle handle = preset.Handle;
      preset.Dispose();
      preset.Dispose();  // the second Dispose frees nothing
      Check(handle.IsClosed, "a disposed preset's handle is closed");
      bool disposed = false;
      try {
        TerraneApi.Heights(preset, 0, 0, 4, 4);
      } catch (ObjectDisposedException) {
        disposed = true;
      }
      Check(disposed, "a disposed preset is ObjectDisposedException, not a dangling pointer");
    }
    // A streamer keeps its preset alive after the preset's Dispose.
    Preset p2 = Preset.Load("default");
    StreamerParams sp = StreamerParams.Default();
    sp.ChunkCells = 32;
    sp.ViewDistanceM = 64;
    Streamer s = Streamer.Create(p2, sp);
    p2.Dispose();
    s.SetViewers(new Viewer(0, 0, 0));
    s.Update();
    s.Dispose();
    s.Dispose();
    Check(true, "streamer outlives its preset's Dispose; disposed twice");
    sp.ChunkCells = 100;
    using (Preset p3 = Preset.Load("default")) {
      e = Throws(delegate { Streamer.Create(p3, sp).Dispose(); });
      Check(e != null && e.Status == Status.InvalidArgument, "chunk_cells 100 refused: " +
                                                                 (e == null ? "none" : e.Message));
    }
  }

  static void ScatterBakeNav(string tmp) {
    using (Preset preset = Preset.Load("default", "seed=3")) {
      Instance[] all = TerraneApi.Scatter(preset, 200, -300, 456, -44);
      Check(all.Length > 0, "scatter: " + all.Length + " instances");
      int species = preset.Info.Species;
      bool inside = true;
      foreach (Instance i in all) {
        inside &= i.XM >= 200 && i.XM < 456 && i.ZM >= -300 && i.ZM < -44 && i.Species >= 0 &&
                  i.Species < species;
      }
      Check(inside, "every instance lies in the rectangle with a valid species");
      HashSet<ulong> ids = new HashSet<ulong>();
      foreach (Instance i in all) ids.Add(i.Id);
      Check(ids.Count == all.Length, "scatter ids are unique");

      BakeOptions o = new BakeOptions();
      o.OutDir = Path.Combine(tmp, "bake");
      o.Formats = "exr";
      o.Size = 65;
      o.CellM = 4;
      o.OriginXM = 200;
      o.OriginZM = -300;
      o.Seed = 3;
      BakeResult r = TerraneApi.Bake(preset, o);
      Check(r.Width == 65 && r.Height == 65 && r.Files >= 2 &&
                File.Exists(Path.Combine(o.OutDir, "default.exr")),
            "bake: " + r.Files + " files, " + r.Bytes + " bytes, " + r.Width + " x " + r.Height);
      o.Formats = "no_such_format";
      TerraneException e = Throws(delegate { TerraneApi.Bake(preset, o); });
      Check(e != null && e.Message.Contains("no_such_format"), "bake with a bad format throws: " +
                                                                  (e == null ? "none" : e.Message));

      NavPathResult path = TerraneApi.NavPath(preset, 10, 10, 40, 30);
      Check(path.PointCount >= 2 || path.Result.PathStatus != PathStatus.Ok,
            "nav path: " + path.Result.PathStatus + ", " + path.PointCount + " points, " +
                path.Result.LengthM.ToString("F1", CultureInfo.InvariantCulture) + " m");
    }
  }

  static void Worlds(string tmp) {
    string file = Path.Combine(tmp, "test.world");
    using (Preset preset = Preset.Load("default")) {
      double cell = preset.Info.CellSizeM;
      float[] before = TerraneApi.Heights(preset, 0, 0, 21, 21, cell);
      using (World w = World.Create(file, preset, true)) {
        Brush b = Brush.Of(BrushKind.Raise);
        b.XM = 10 * cell;
        b.ZM = 10 * cell;
        b.RadiusM = 5 * cell;
        b.Strength = 2;
        Check(b.FalloffStart == 0.5, "brush defaults: falloff 0.5");
        Check(w.Apply(b), "raise brush changed the world");
        float[] raised = w.Heights(0, 0, 21, 21, cell);
        Check(raised[10 * 21 + 10] - before[10 * 21 + 10] > 1.5f,
              "world heights raised at the centre by " + (raised[10 * 21 + 10] - before[10 * 21 + 10]));
        Check(w.Info.PendingStrokes == 1, "one pending stroke");
        Check(w.Undo(), "undo");
        float[] undone = w.Heights(0, 0, 21, 21, cell);
        string where;
        Check(SameBytes(Bytes(undone), Bytes(before), out where), "undo restores the heights");
        Check(!w.Undo(), "a second undo has nothing to take back");
        w.Apply(b);
        ulong seq = w.Commit("C# test");
        Check(w.Info.Commits == 1, "commit " + seq + ": one commit");
      }
      using (World w = World.Open(file, true)) {
        float[] reopened = w.Heights(0, 0, 21, 21, cell);
        Check(reopened[10 * 21 + 10] - before[10 * 21 + 10] > 1.5f, "the edit is in the file");
        using (Preset wp = w.Preset()) Check(wp.Info.Hash == preset.Info.Hash, "world's preset hash");
        Brush b = Brush.Of(BrushKind.Lower);
        w.Apply(b);
        TerraneException e = Throws(delegate { w.Commit(); });
        Check(e != null && e.Status == Status.InvalidArgument && w.LastError == e.Message,
              "commit of a read-only world throws with the world's message: " +
                  (e == null ? "none" : e.Message));
      }
    }
    TerraneException e2 = Throws(delegate { World.Open(Path.Combine(tmp, "missing.world")); });
    Check(e2 != null && e2.Message.Contains("missing.world"), "opening a missing world names it: " +
                                                                 (e2 == null ? "none" : e2.Message));
  }

  static int Main(string[] args) {
    if (args.Length < 1) {
      Console.Error.WriteLine("usage: mono terrane_test.exe REFERENCE_DIR");
      return 2;
    }
    string referenceDir = args[0];
    string tmp = Path.Combine(Path.GetTempPath(), "terrane_csharp_" + Process.GetCurrentProcess().Id);
    Directory.CreateDirectory(tmp);
    try {
      Group("layouts", Layouts);
      Group("version", Version);
      Group("heights", delegate { Heights(referenceDir); });
      Group("streaming", delegate { Streaming(referenceDir); });
      Group("errors", Errors);
      Group("scatter, bake, nav", delegate { ScatterBakeNav(tmp); });
      Group("worlds", delegate { Worlds(tmp); });
    } finally {
      try {
        Directory.Delete(tmp, true);
      } catch (Exception) {
      }
    }
    Console.WriteLine((checks_ - failures_) + " of " + checks_ + " checks passed" +
                      (failures_ > 0 ? ", " + failures_ + " FAILED" : ""));
    return failures_ == 0 ? 0 : 1;
  }
}
