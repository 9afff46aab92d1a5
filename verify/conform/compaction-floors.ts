/**
 * Below which applied index each Raft group's records can be forgotten (issue 23 item 4:
 * memory bounded however long the trace). A replica applies only entries above its snapshot
 * and restores only a snapshot at or above its durable one (a restart loads the durable
 * snapshot, an InstallSnapshot is above its commit index), so once every member of a group
 * has a durable snapshot at or above k, or its trace has ended, no replica of the group is
 * seen at an index below k again: StateMachineSafety's and ReplicaAgreement's records there
 * are never compared again. A member without a record yet holds its group's floor at 0.
 */

interface GroupFloors {
  readonly members: readonly string[];
  /** member -> its durable snapshot's index; Infinity once its trace has ended. */
  readonly floors: Map<string, number>;
  floor: number;
}

export class CompactionFloors {
  private readonly groups = new Map<string, GroupFloors>();
  private readonly groupOf = new Map<string, GroupFloors>();

  /**
   * `node`, a member of `group` of `members`, has its durable snapshot at `index` (or its
   * trace ended: Infinity). Returns the group's floor when it rose, else null.
   */
  note(node: string, group: string, members: readonly string[], index: number): number | null {
    let floors = this.groupOf.get(node);
    if (floors === undefined) {
      floors = this.groups.get(group);
      if (floors === undefined) {
        floors = { members, floors: new Map(), floor: 0 };
        this.groups.set(group, floors);
      }
      this.groupOf.set(node, floors);
    }
    if (floors.floors.get(node) === index) return null;
    floors.floors.set(node, index);
    // The members not seen yet hold the floor at 0; every node seen counts, named or not.
    let least = Infinity;
    for (const member of floors.members) if (!floors.floors.has(member)) least = 0;
    for (const floor of floors.floors.values()) least = Math.min(least, floor);
    // Every member ended: nothing more is seen, and nothing needs dropping.
    if (least === Infinity || least <= floors.floor) return null;
    floors.floor = least;
    return least;
  }
}
