(* Allocates and touches 1 GiB in 16 MiB blocks, all kept live. *)
let () =
  Scanf.scanf " %d %d" (fun a b ->
      let blocks = List.init 64 (fun i -> Array.make (2 lsl 20) i) in
      let s = List.fold_left (fun acc bl -> acc + bl.(Array.length bl - 1)) 0 blocks in
      Printf.printf "%d\n" (a + b + s - s))
